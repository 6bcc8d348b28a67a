// Bring-your-own-key LLM calls through the AI SDK, with structured output validated by zod. The provider key lives
// only in this call: it is never stored, logged or put into an error.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateObject, NoObjectGeneratedError, type LanguageModel } from 'ai';
import type { z } from 'zod';
import type { Config } from '../../config.ts';
import { LoreError } from '../errors.ts';

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

/**
 * The caller's provider, or the server's own for keys with the managed_llm scope that send none.
 * Missing headers: 402 precondition_required; an unknown provider: 400.
 */
export function chooseLlm(credentials: LlmCredentials | undefined, config: Config['llm'], scopes: ReadonlySet<string>): LlmChoice {
  let { provider, key, model } = credentials ?? {};
  if (!provider && !key && scopes.has('managed_llm') && config.managed) {
    ({ provider, key, model } = { ...config.managed, model: model ?? config.managed.model });
  }
  if (!provider || !key) {
    throw new LoreError(
      'precondition_required',
      'This endpoint runs an LLM with your own provider key: send X-LLM-Provider (anthropic, openai or openai-compatible) and X-LLM-Key.',
    );
  }
  if (!(providers as readonly string[]).includes(provider)) {
    throw new LoreError('unknown_provider', `Unknown LLM provider "${provider.slice(0, 40)}"; use one of ${providers.join(', ')}.`);
  }
  const name = provider as ProviderName;
  if (name === 'openai-compatible' && !config.baseUrls['openai-compatible']) {
    throw new LoreError('unknown_provider', 'The openai-compatible provider is not configured on this server (LORE_OPENAI_COMPATIBLE_BASE_URL).');
  }
  const chosen = model ?? defaultModels[name];
  if (!chosen) throw new LoreError('validation_error', 'X-LLM-Model is required for the openai-compatible provider.');
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
