// The brief (POST /projects/{id}/brief): a scene in, the canon that matters for it out, within a token budget.
import { z } from 'zod';
import { omittedCounts } from '../../src/core/brief/omitted.ts';
import { briefBudget, briefEntityIds, briefFormats, chapterRef, defaultBriefBudget, passageText } from '../../src/core/validation.ts';
import { jsonObject } from './json.ts';

export const briefBody = z
  .object({
    chapter: chapterRef.optional().meta({ description: 'the chapter id of the scene: the canon as it stands there (story time); absent, after the last chapter' }),
    text: passageText.optional().meta({ description: 'the scene, draft or outline, at most 50,000 characters: the entities it names come first' }),
    entity_ids: briefEntityIds.optional().meta({ description: 'entities the scene involves besides those its text names; text, entity_ids or both' }),
    budget: briefBudget.default(defaultBriefBudget).meta({ description: `tokens at most (o200k_base), 100..200000, default ${defaultBriefBudget}` }),
    format: z.enum(briefFormats).default('json').meta({ description: 'json: content as structured JSON; markdown: the same as Markdown to paste into a prompt' }),
  })
  .meta({ id: 'BriefRequest' });

const fact = z.object({ id: z.string(), text: z.string() });
const state = z.record(z.string(), z.unknown()).meta({ ...jsonObject, description: 'the state as of the chapter' });
const relationship = z.object({ id: z.string(), from: z.string().meta({ description: 'entity id' }), kind: z.string(), to: z.string().meta({ description: 'entity id' }) });

export const BriefContent = z
  .object({
    entities: z.array(
      z.object({
        id: z.string(),
        type: z.string(),
        name: z.string(),
        aliases: z.array(z.string()),
        state,
        named_by: z.enum(['text', 'id', 'kin']).meta({ description: 'named in the text, given by id, or a relative a kin word in the text points to' }),
        facts: z.array(fact).meta({ description: 'approved live facts holding at the chapter, by id' }),
      }),
    ),
    relationships: z.array(relationship).meta({ description: 'relationships between the named entities' }),
    neighbours: z.array(
      z.object({ id: z.string(), type: z.string(), name: z.string(), state, relationships: z.array(relationship) }).meta({ description: 'an entity one relationship away from a named one' }),
    ),
    rules: z.array(z.object({ id: z.string(), name: z.string(), facts: z.array(fact) })),
    promises: z
      .array(
        z.object({
          id: z.string(),
          name: z.string(),
          set_up_in: z.string().nullable().meta({ description: 'chapter id of its setup (promise ledger)' }),
          age: z.number().int().nullable().meta({ description: 'chapters since its setup' }),
          facts: z.array(fact),
        }),
      )
      .meta({ description: 'promises open at the chapter that the scene names, that are related to a named entity, or that involve one' }),
    knowledge: z
      .array(
        z.object({
          id: z.string().meta({ description: 'the character' }),
          name: z.string(),
          knows: z.array(fact).meta({ description: 'secret or restricted facts it knows at the chapter' }),
          unaware: z.array(fact).meta({ description: 'facts the reader knows at the chapter that it does not know yet' }),
        }),
      )
      .meta({ description: 'who knows what: each named character with tracked facts on either side (src/core/knowledge)' }),
    beats: z.array(z.object({ id: z.string(), chapter: z.string(), summary: z.string() })).meta({ description: 'the last beats before the chapter, in story order' }),
  })
  .meta({ id: 'BriefContent' });

export const Brief = z
  .object({
    chapter: z.string().nullable().meta({ description: 'the chapter id it is as of; null: after the last chapter' }),
    format: z.enum(briefFormats),
    encoding: z.string().meta({ description: 'the tokenizer encoding tokens are counted in: o200k_base' }),
    budget: z.number().int(),
    tokens: z.number().int().meta({ description: 'tokens of content as compact JSON (format json) or of markdown: never more than budget' }),
    omitted: omittedCounts.meta({ description: 'items of each kind that did not fit the budget' }),
    content: BriefContent.optional().meta({ description: 'format json' }),
    markdown: z.string().optional().meta({ description: 'format markdown' }),
  })
  .meta({ id: 'Brief' });
