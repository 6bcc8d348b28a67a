// The operator's embedding provider: any endpoint speaking the OpenAI embeddings API (OpenAI, Ollama, LM Studio, vLLM,
// Hugging Face TEI), called through the AI SDK. Its key lives in the configuration only: never logged nor put in an
// error, even when the provider's own message echoes it.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, embedMany, type EmbeddingModel } from 'ai';
import type { EmbeddingsConfig } from '../../config.ts';
import { redactSecrets } from '../redaction.ts';

// The SDK's own warnings would go to the console; our logs are pino's alone.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** Longer texts are cut: every model has an input limit, and a search text's first few thousand characters say enough. */
export const maxTextChars = 6_000;

export class EmbeddingProvider {
  readonly model: string;
  private readonly client: EmbeddingModel;

  constructor(private readonly config: EmbeddingsConfig) {
    this.model = config.model;
    this.client = createOpenAICompatible({ name: 'lore-embeddings', baseURL: config.url, apiKey: config.key }).embeddingModel(config.model);
  }

  /** One vector per text, in order; an answer of the wrong length or with a non-finite number is an error. */
  async embed(texts: string[], timeoutMs: number): Promise<number[][]> {
    const { embeddings } = await embedMany({
      model: this.client,
      values: texts.map((text) => text.slice(0, maxTextChars)),
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(timeoutMs),
      providerOptions: this.config.dimensions ? { openaiCompatible: { dimensions: this.config.dimensions } } : undefined,
    });
    if (embeddings.length !== texts.length) throw new InvalidAnswer(`the provider answered ${embeddings.length} vectors for ${texts.length} texts`);
    const dimensions = this.config.dimensions ?? embeddings[0]?.length;
    for (const vector of embeddings) {
      if (vector.length !== dimensions || vector.length === 0) {
        throw new InvalidAnswer(`the provider answered a vector of ${vector.length} dimensions, not ${dimensions}${this.config.dimensions ? ' (LORE_EMBEDDINGS_DIMENSIONS)' : ''}`);
      }
      if (!vector.every(Number.isFinite)) throw new InvalidAnswer('the provider answered a vector with a number that is not finite');
    }
    return embeddings;
  }

  /**
   * Why a call failed: a stable code for GET /health, which anyone may read, and a short line for the log, with the
   * provider's status and message, never its key (redacted, even when the provider repeats it) nor the texts.
   */
  describe(error: unknown): ProviderFailure {
    const e = error as Error;
    if (APICallError.isInstance(error)) {
      const message = redactSecrets(`${error.statusCode ? `HTTP ${error.statusCode}: ` : ''}${error.message}`, [this.config.key]).slice(0, 300);
      return { code: error.statusCode ? `provider_http_${error.statusCode}` : 'provider_unreachable', message };
    }
    if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return { code: 'provider_timeout', message: 'the provider did not answer in time' };
    const message = redactSecrets(String(e?.message ?? error), [this.config.key]).slice(0, 300);
    return { code: error instanceof InvalidAnswer ? 'provider_invalid_answer' : 'provider_error', message };
  }
}

/**
 * Whether the failure is the provider's as a whole (unreachable, overloaded, refusing the key, timing out), which
 * retrying later cures, rather than a refusal of these texts in particular (400, 413, 422).
 */
export function isProviderOutage(error: unknown): boolean {
  return !(APICallError.isInstance(error) && error.statusCode !== undefined && [400, 413, 422].includes(error.statusCode));
}

/** A failed call: `code` is safe to show anyone, `message` (already redacted) is for the operator's log. */
export type ProviderFailure = { code: string; message: string };

/** An answer that is not the vectors asked for. */
class InvalidAnswer extends Error {}
