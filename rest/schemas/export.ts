// GET /projects/{id}/export (extension): the project as a canon bundle, in the format `lore import` reads.
import { z } from 'zod';
import { entityTypes, promiseStatuses } from '../../src/core/ingest/bundle.ts';

const status = z.enum(['approved', 'suggested']);
const chapterId = z.string().meta({ description: 'a chapter id of the bundle (chapters[].id)' });
const state = z.record(z.string(), z.unknown());

const ExportedFact = z.union([
  z.string().meta({ description: "a timeless fact with the entity's status" }),
  z.object({
    text: z.string(),
    from: chapterId.optional().meta({ description: 'holds from this chapter on (inclusive); absent: from the start' }),
    until: chapterId.optional().meta({ description: 'holds until this chapter (exclusive); absent: to the end' }),
    status,
  }),
]);

export const CanonBundle = z
  .object({
    project: z.object({ name: z.string(), description: z.string().optional() }),
    entities: z
      .array(
        z.object({
          key: z.string(),
          type: z.enum(entityTypes),
          name: z.string(),
          aliases: z.array(z.string()).optional(),
          state: state.optional().meta({ description: 'the values that hold throughout the story' }),
          stateChanges: z
            .array(z.object({ from: chapterId.optional(), until: chapterId.optional(), state }))
            .optional()
            .meta({ description: 'values that hold for part of the story, by span' }),
          facts: z.array(ExportedFact).optional().meta({ description: 'live facts in the order they were written; retired ones are left out' }),
          status,
          confidence: z.number().min(0).max(1).optional(),
          promise: z
            .object({
              set_up_in: chapterId.optional(),
              paid_off_in: chapterId.optional(),
              involves: z.array(z.string()).optional().meta({ description: 'entity keys' }),
              status: z.enum(promiseStatuses),
            })
            .optional()
            .meta({ description: "a promise's ledger line" }),
        }),
      )
      .optional()
      .meta({ description: 'by key' }),
    relationships: z
      .array(z.object({ from: z.string().meta({ description: 'entity key' }), to: z.string().meta({ description: 'entity key' }), kind: z.string(), weight: z.number() }))
      .optional(),
    chapters: z
      .array(z.object({ id: z.string(), title: z.string().optional(), ordinal: z.number().int(), text: z.string().optional() }))
      .optional()
      .meta({ description: 'in reading order' }),
    timeline: z
      .array(
        z.object({
          chapter: chapterId,
          beats: z.array(z.object({ summary: z.string(), entities: z.array(z.string()).optional().meta({ description: 'entity keys' }) })),
        }),
      )
      .optional()
      .meta({ description: "the beats each chapter's timeline shows" }),
  })
  .meta({ id: 'CanonBundle' });
