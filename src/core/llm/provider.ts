// Bring-your-own-key LLM calls through the AI SDK, with structured output validated by zod. The provider key lives
// only in this call: it is never stored, logged or put into an error.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateObject, NoObjectGeneratedError, type LanguageModel } from 'ai';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import { LoreError } from '../errors.ts';
import { describeIssues } from '../validation.ts';

// The SDK's own warnings (unknown model ids and the like) would go to the console; our logs are pino's alone.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

export const providers = ['anthropic', 'openai', 'openai-compatible'] as const;
export type ProviderName = (typeof providers)[number];

/** What a request brings: the BYOK headers X-LLM-Provider, X-LLM-Key, X-LLM-Model. */
export type LlmCredentials = { provider?: string; key?: string; model?: string };

export type LlmChoice = { provider: ProviderName; key: string; model: string };

const defaultModels: Record<ProviderName, string | undefined> = {
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-4.1-mini',
  'openai-compatible': undefined,
};

/** What the BYOK headers may hold; the OpenAPI document declares the same rules. */
export const llmHeaderRules = {
  'X-LLM-Key': z.string().max(1000, 'must be at most 1000 characters').regex(/^[\x21-\x7E]+$/, 'must be printable ASCII without spaces'),
  'X-LLM-Model': z.string().max(200, 'must be at most 200 characters').regex(/^[\x21-\x7E]+$/, 'must be printable ASCII without spaces'),
};

/** The providers a request may name: openai-compatible only where the server has its base URL. */
export const offeredProviders = (config: Config['llm']): ProviderName[] =>
  providers.filter((name) => name !== 'openai-compatible' || Boolean(config.baseUrls['openai-compatible']));

/**
 * The caller's provider, or the server's own for keys with the managed_llm scope that send none.
 * A header sent with a bad value: 400 (unknown_provider, or validation_error naming the header), whether or not the
 * others are there; missing headers: 402 precondition_required.
 */
export function chooseLlm(credentials: LlmCredentials | undefined, config: Config['llm'], scopes: ReadonlySet<string>): LlmChoice {
  let { provider, key, model } = credentials ?? {};
  const errors = (['X-LLM-Key', 'X-LLM-Model'] as const).flatMap((header) => {
    const value = header === 'X-LLM-Key' ? key : model;
    const result = value === undefined ? undefined : llmHeaderRules[header].safeParse(value);
    return result && !result.success ? describeIssues(result.error, `header.${header}`) : [];
  });
  if (errors.length > 0) throw new LoreError('validation_error', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
  const offered: string[] = offeredProviders(config);
  if (provider !== undefined && !offered.includes(provider)) {
    throw new LoreError(
      'unknown_provider',
      provider === 'openai-compatible'
        ? 'The openai-compatible provider is not configured on this server (LORE_OPENAI_COMPATIBLE_BASE_URL).'
        : `Unknown LLM provider "${provider.slice(0, 40)}"; use one of ${offered.join(', ')}.`,
    );
  }
  if (provider === undefined && key === undefined && scopes.has('managed_llm') && config.managed) {
    ({ provider, key, model } = { ...config.managed, model: model ?? config.managed.model });
  }
  if (provider === undefined || key === undefined) {
    throw new LoreError(
      'precondition_required',
      `This endpoint runs an LLM with your own provider key: send X-LLM-Provider (${offered.join(', ')}) and X-LLM-Key.`,
    );
  }
  const name = provider as ProviderName;
  const chosen = model ?? defaultModels[name];
  if (!chosen) {
    const message = 'is required for the openai-compatible provider';
    throw new LoreError('validation_error', `header.X-LLM-Model: ${message}`, { errors: [{ path: 'header.X-LLM-Model', message }] });
  }
  return { provider: name, key, model: chosen };
}

function languageModel(choice: LlmChoice, config: Config['llm']): LanguageModel {
  switch (choice.provider) {
    case 'anthropic':
      return createAnthropic({ apiKey: choice.key, baseURL: config.baseUrls.anthropic })(choice.model);
    case 'openai':
      return createOpenAI({ apiKey: choice.key, baseURL: config.baseUrls.openai }).chat(choice.model);
    case 'openai-compatible':
      return createOpenAICompatible({ name: 'openai-compatible', apiKey: choice.key, baseURL: config.baseUrls['openai-compatible']! })(choice.model);
  }
}

export type StructuredResult<T> = { object: T; inputTokens: number | undefined };

/**
 * Asks for an object of `schema`. A reply that does not fit is asked for once more, then reported as a 502; provider
 * failures become llm_provider_error (with the provider's status) and a timeout llm_timeout.
 */
export async function generateStructured<T>(
  choice: LlmChoice,
  config: Config['llm'],
  request: { schema: z.ZodType<T>; system: string; prompt: string },
): Promise<StructuredResult<T>> {
  const model = languageModel(choice, config);
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await generateObject({
        model,
        schema: request.schema,
        system: request.system,
        prompt: request.prompt,
        temperature: 0,
        maxOutputTokens: 4096,
        maxRetries: 0,
        abortSignal: AbortSignal.timeout(config.timeoutMs),
      });
      return { object: result.object as T, inputTokens: result.usage.inputTokens };
    } catch (error) {
      if (NoObjectGeneratedError.isInstance(error)) {
        if (attempt < 2) continue;
        throw new LoreError('llm_provider_error', `The model's reply did not match the expected JSON twice (${choice.provider} ${choice.model}).`);
      }
      throw describeProviderFailure(error, choice);
    }
  }
}

function describeProviderFailure(error: unknown, choice: LlmChoice): LoreError {
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError' || (error as { cause?: Error })?.cause?.name === 'TimeoutError') {
    return new LoreError('llm_timeout', `The ${choice.provider} provider did not answer in time.`);
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const reason = status === 401 || status === 403 ? 'rejected the provider key' : status === 429 ? 'is rate limiting this provider key' : 'failed';
    return new LoreError('llm_provider_error', `The ${choice.provider} provider ${reason}${status ? ` (HTTP ${status})` : ''}.`, { providerStatus: status ?? null });
  }
  return new LoreError('llm_provider_error', `The ${choice.provider} provider could not be reached.`, { providerStatus: null });
}
