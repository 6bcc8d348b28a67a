// Facts (extension): create, retcon, retire, their history and what depends on them.
import { z } from 'zod';
import { chapterLine, chapterRef, factStatus, factText, resourceId, retireReason, sourceContent } from '../../src/core/validation.ts';
import { projectPath } from '../schemas.ts';

const dateTime = z.string().meta({ format: 'date-time' });

export const factPath = projectPath.extend({ factId: resourceId.meta({ description: 'fact id' }) });

export const knower = z
  .object({
    entity_id: resourceId.meta({ description: 'the entity (a character) that knows the fact' }),
    from: chapterRef.optional().meta({ description: 'the chapter id it learns the fact in; absent: from the start' }),
    line: chapterLine.optional().meta({ description: 'the line of that chapter it learns it at (known after it); without from it is not used' }),
  })
  .meta({ id: 'FactKnowerRequest' });
export const knownBy = z.array(knower).max(200).meta({ description: 'who knows it, from when: then only they know it, each from their point (who knows what, when)' });
export const secret = z.boolean().meta({ description: 'nobody knows it until someone learns it (known_by)' });

export const FactKnower = z
  .object({ entity_id: z.string(), from: z.string().optional().meta({ description: 'absent: from the start' }), line: z.number().int().optional() })
  .meta({ id: 'FactKnower' });

export const createFactBody = z
  .object({
    entity_id: resourceId.meta({ description: 'the entity the fact is about' }),
    text: factText.meta({ description: 'the statement, at most 2000 characters' }),
    from: chapterRef.optional().meta({ description: 'story time: the chapter id it holds from (inclusive); absent: from the start' }),
    until: chapterRef.optional().meta({ description: 'story time: the chapter id it holds until (exclusive); absent: to the end' }),
    status: factStatus.optional().meta({ description: "approved (default: the author's own canon) or suggested (waits in the review queue)" }),
    content: sourceContent.optional().meta({ description: 'the source text the fact comes from, kept as provenance' }),
    known_by: knownBy.optional(),
    secret: secret.optional(),
  })
  .meta({ id: 'CreateFactRequest' });

export const updateFactBody = z
  .object({
    text: factText.optional().meta({ description: 'the new statement' }),
    from: chapterRef.nullable().optional().meta({ description: 'a chapter id; null: holds from the start; absent: unchanged' }),
    until: chapterRef.nullable().optional().meta({ description: 'a chapter id; null: holds to the end; absent: unchanged' }),
    status: factStatus.optional(),
    known_by: knownBy.optional().meta({ description: 'who knows it, from when (replaces the list); absent: unchanged' }),
    secret: secret.optional().meta({ description: 'absent: unchanged' }),
  })
  .meta({ id: 'UpdateFactRequest', anyOf: ['text', 'from', 'until', 'status', 'known_by', 'secret'].map((field) => ({ required: [field] })) });

export const retireFactQuery = z.object({ reason: retireReason.optional().meta({ description: 'why, kept with the decision' }) });

export const Fact = z
  .object({
    id: z.string(),
    entity_id: z.string(),
    text: z.string(),
    status: factStatus,
    source: z.string().meta({ description: 'where it came from: api, import, …' }),
    candidate_id: z.string().optional().meta({ description: 'its provenance: the proposal it came from' }),
    from: z.string().optional().meta({ description: 'the chapter id it holds from; absent: from the start' }),
    until: z.string().optional().meta({ description: 'the chapter id it holds until (exclusive); absent: to the end' }),
    created_at: dateTime,
    created_by: z.string().optional().meta({ description: 'the key id that wrote it' }),
    retired_at: dateTime.optional().meta({ description: 'when it left the canon; absent while live' }),
    retired_by: z.string().optional().meta({ description: 'the key id that retired it' }),
    replaced_by_id: z.string().optional().meta({ description: 'the fact that replaced it in a retcon' }),
    secret: z.boolean().meta({ description: 'nobody knows it until someone learns it' }),
    known_by: z
      .array(FactKnower)
      .meta({ description: 'who knows it, from when; empty and not secret: common knowledge' }),
  })
  .meta({ id: 'FactRecord' });

export const Dependents = z
  .object({
    conflicts: z.array(z.object({ id: z.string(), status: z.enum(['pending', 'resolved', 'dismissed']), kind: z.string(), title: z.string() })).meta({
      description: 'stored conflicts (any status) citing the fact or its entity, newest first',
    }),
    beats: z.array(z.object({ id: z.string(), chapter: z.string(), summary: z.string() })).meta({ description: 'beats involving the entity, in reading order' }),
    mentions: z
      .array(z.object({ id: z.string(), chapter: z.string(), line: z.number().int().meta({ description: '1-based' }), snippet: z.string() }))
      .meta({ description: "mentions of the entity in reading order, from the fact's from chapter on; at most 200" }),
    mention_count: z.number().int().meta({ description: 'how many such mentions there are in all' }),
  })
  .meta({ id: 'Dependents' });

export const RetconResult = z
  .object({
    fact: Fact.optional().meta({ description: 'the fact that now holds; absent when the fact was retired without a replacement' }),
    replaced: Fact.meta({ description: 'the old fact, now retired' }),
    decision_id: z.string().optional().meta({ description: "the decision recorded: the new fact's approval, or the retirement" }),
    dependents: Dependents,
  })
  .meta({ id: 'RetconResult' });

export const FactHistory = z.object({ data: z.array(Fact).meta({ description: 'retired facts, newest retirement first' }) }).meta({ id: 'FactHistory' });
