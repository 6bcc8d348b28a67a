// How many chapters one ExtractCanon call may ask the model about: here, without the schemas rules.ts builds, so the
// CLI can name them in its help without loading zod.
export const maxExtractLimit = 20;
export const defaultExtractLimit = 10;
