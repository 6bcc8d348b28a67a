// Field rules of manuscript import and extraction, shared by the GraphQL core and the MCP tool (which never touch the
// database, so these live apart from the readers and services).
import { z } from 'zod';
import { chapterRef, text } from '../../validation.ts';
import { maxExtractLimit } from './limits.ts';
import { manuscriptFormats, maxFiles } from './manuscript.ts';

export const manuscriptFormat = z.enum(manuscriptFormats);
export const fileEncodings = ['utf8', 'base64'] as const;

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A file as a client sends it: its path in the manuscript and its content, as text or (binary files) base64. */
export const manuscriptFileInput = z
  .object({
    path: text().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters'),
    content: z.string(),
    encoding: z.enum(fileEncodings).default('utf8'),
  })
  .refine((f) => f.encoding !== 'base64' || (f.content.length % 4 === 0 && base64.test(f.content)), { message: 'must be base64 (encoding is base64)', path: ['content'] });

export const manuscriptFiles = z.array(manuscriptFileInput).min(1, 'must hold at least one file').max(maxFiles, `must be at most ${maxFiles} files`);

export const manuscriptOptions = z.object({
  headingLevel: z.union([z.literal(1), z.literal(2)], { message: 'must be 1 or 2' }).optional(),
  chaptersFolder: text().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
});

/** Chapters one extraction call asks the model about, at most and by default. */
export { defaultExtractLimit, maxExtractLimit } from './limits.ts';
export const extractLimit = z.number().int('must be an integer').min(1, 'must be at least 1').max(maxExtractLimit, `must be at most ${maxExtractLimit}`);
export const extractChapters = z.array(chapterRef).min(1, 'must name at least one chapter').max(100, 'must be at most 100 chapters');

/** A file's bytes, from its content as sent. */
export const fileBytes = (file: z.infer<typeof manuscriptFileInput>) => Buffer.from(file.content, file.encoding === 'base64' ? 'base64' : 'utf8');
