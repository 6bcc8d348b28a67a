// Tokens as OpenAI's o200k_base encoding counts them (GPT-4o and later), with gpt-tokenizer. Other model families
// tokenize differently (README: how close it is); a brief's budget is kept in this one measure. The encoding's
// tables take most of a second to load, so they are loaded on the first brief rather than with every process.
type Encoding = typeof import('gpt-tokenizer/encoding/o200k_base');

export const encodingName = 'o200k_base';

export type TokenCounter = {
  count: (text: string) => number;
  /** The text's tokens if they are at most `limit`, else false: counting stops once past it (most of a long text that cannot fit is never read). */
  within: (text: string, limit: number) => number | false;
};

let loading: Promise<Encoding> | undefined;

/** The token counter, loaded once. */
export async function tokenCounter(): Promise<TokenCounter> {
  const encoding = await (loading ??= import('gpt-tokenizer/encoding/o200k_base'));
  return {
    count: (text) => encoding.countTokens(text),
    within: (text, limit) => (limit < 0 ? false : encoding.isWithinTokenLimit(text, limit)),
  };
}
