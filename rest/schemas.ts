// The /api/v1 contract as zod schemas: requests are validated with them and the OpenAPI document is generated from
// them, so the two cannot drift. Field rules come from the core (src/core/validation.ts).
import { z } from 'zod';
import { entityTypes } from '../src/core/ingest/bundle.ts';
import { factsPerEntity } from '../src/core/canon/entities.ts';
import { conflictKinds, severities } from '../src/core/conflicts/kinds.ts';
import {
  chapterLine, chapterOrdinal, chapterRef, maxChapterOrdinal, cursor, defaultPageLimit, passageText, factText, graphDepth, initialScope, pageLimit, projectDescription, projectName, recallQuery,
  resourceId, searchQuery, sourceContent,
} from '../src/core/validation.ts';

// Query strings arrive as text; integers are accepted only when written as integers, with nothing around them.
export const intFromQuery = (rule: z.ZodNumber) =>
  z.preprocess((v) => (typeof v === 'string' && /^-?\d{1,15}$/.test(v) ? Number(v) : v), rule);

export const pageQuery = {
  limit: intFromQuery(pageLimit).optional().meta({ type: 'integer', minimum: 1, maximum: 100, default: defaultPageLimit, description: 'page size' }),
  starting_after: cursor.optional().meta({
    description: 'cursor: the last id of the previous page; an id that is not an item of this list (deleted, or of another list) is 400 invalid_cursor',
  }),
};

export const projectPath = z.object({ id: resourceId.meta({ description: 'project id' }) });
export const entityPath = projectPath.extend({ entityId: resourceId.meta({ description: 'entity id' }) });

export const createProjectBody = z
  .object({
    name: projectName.meta({ maxLength: 80 }),
    description: projectDescription.optional(),
    initial_scope: initialScope.optional(),
  })
  .meta({ id: 'CreateProjectRequest' });

export const recallQueryParams = z.object({
  q: recallQuery.optional().meta({ description: 'filter on name or alias (case-insensitive substring)' }),
  limit: intFromQuery(pageLimit).optional().meta({ type: 'integer', minimum: 1, maximum: 100, default: defaultPageLimit, description: 'extension: at most this many entities' }),
  as_of: chapterRef.optional().meta({ description: 'extension: a chapter id; currentState and facts as they stand at that chapter (without it, the latest)' }),
});
export const mentionsQueryParams = z.object(pageQuery);
export const searchQueryParams = z.object({ q: searchQuery.meta({ description: 'words, names or aliases to look for' }), ...pageQuery });
export const graphQueryParams = z.object({
  root: resourceId.optional().meta({ description: 'entity id to start from; without it the 50 most connected nodes' }),
  depth: intFromQuery(graphDepth).optional().meta({ type: 'integer', minimum: 1, maximum: 3, default: 1, description: 'extension: hops from root' }),
});
export const approveBody = z
  .object({
    fact: factText.optional().meta({ description: 'the statement to add to the canon' }),
    content: sourceContent.optional().meta({ description: 'the source text the fact comes from' }),
  })
  .meta({ id: 'ApproveRequest' });

const dateTime = z.string().meta({ format: 'date-time' });

export const Project = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    last_updated: dateTime,
    entity_count: z.number().int(),
    conflict_count: z.number().int().meta({ description: 'pending conflicts' }),
  })
  .meta({ id: 'Project' });
export const ProjectList = z.object({ data: z.array(Project) }).meta({ id: 'ProjectList' });
export const CreatedProject = z.object({ id: z.string() }).meta({ id: 'CreatedProject' });

const LastMention = z.object({ chapter: z.string(), line: z.number().int(), snippet: z.string(), timestamp: dateTime });
const StoryFact = z
  .object({
    id: z.string(),
    text: z.string(),
    from: z.string().optional().meta({ description: 'chapter id it holds from (inclusive); absent: from the start' }),
    until: z.string().optional().meta({ description: 'chapter id it holds until (exclusive); absent: to the end' }),
  })
  .meta({ id: 'StoryFact' });
// One shape for a tracked fact wherever it is listed: the knowledge route keeps its nulls, recall leaves them out.
const KnowledgePoint = z
  .object({
    chapter: z.string().nullable().optional().meta({ description: 'null (absent in recall): from the start' }),
    line: z.number().int().nullable().optional().meta({ description: 'the line of that chapter it is learned after; null (absent in recall): none given' }),
  })
  .meta({ id: 'KnowledgePoint' });
export const KnownFact = z
  .object({
    id: z.string().meta({ description: 'the fact' }),
    text: z.string(),
    about: z.object({ id: z.string(), name: z.string() }).meta({ description: 'the entity the fact is about' }),
    secret: z.boolean().meta({ description: 'nobody knows it until someone learns it' }),
    learned: KnowledgePoint.nullable().optional().meta({
      description: 'knows: where it was learned; unaware: where it is learned later, null (absent in recall) when never',
    }),
  })
  .meta({ id: 'KnownFact' });
const KnowledgeSides = z.object({ knows: z.array(KnownFact), unaware: z.array(KnownFact) }).meta({ id: 'RecallKnowledge' });
export const RecallEntity = z
  .object({
    id: z.string(),
    type: z.enum(entityTypes),
    canonicalName: z.string(),
    aliases: z.array(z.string()).optional().meta({ description: 'extension: other names' }),
    lastMentions: z.array(LastMention).optional(),
    currentState: z.record(z.string(), z.unknown()).optional(),
    pendingConflictIds: z.array(z.string()).optional(),
    confidence: z.number().min(0).max(1).optional().meta({ description: '0..1, how sure the source of the entity was; absent when unknown' }),
    approvalStatus: z.enum(['approved', 'suggested']).optional(),
    facts: z.array(StoryFact).optional().meta({
      description: `extension: approved live facts holding at as_of (without it, those with no until), the first ${factsPerEntity} by id`,
    }),
    suggestedFacts: z.array(StoryFact).optional().meta({
      description: `extension: suggested facts (proposed, not canon until approved), chosen like facts, the first ${factsPerEntity} by id`,
    }),
    knowledge: KnowledgeSides.optional().meta({
      description: 'extension, characters only, with as_of: the secret or restricted facts it knows there, and those the reader knows that it does not know yet',
    }),
  })
  .meta({ id: 'RecallEntity' });
export const RecallResponse = z.object({ entities: z.array(RecallEntity) }).meta({ id: 'RecallResponse' });

export const Mention = z
  .object({ id: z.string(), chapter: z.string(), line: z.number().int().meta({ description: '1-based' }), snippet: z.string(), timestamp: dateTime })
  .meta({ id: 'Mention' });
export const MentionsEnvelope = z
  .object({ data: z.array(Mention), has_more: z.boolean(), next_starting_after: z.string().optional() })
  .meta({ id: 'MentionList' });
export const EntitiesEnvelope = z
  .object({ data: z.array(RecallEntity), entities: z.array(RecallEntity), has_more: z.boolean(), next_starting_after: z.string().optional() })
  .meta({ id: 'EntityList' });

export const GraphSubset = z
  .object({
    nodes: z.array(z.object({ id: z.string(), label: z.string(), type: z.string() })),
    edges: z.array(z.object({ from: z.string(), to: z.string(), kind: z.string(), weight: z.number() })),
  })
  .meta({ id: 'GraphSubset' });

export const UsageSummary = z
  .object({
    api_key_id: z.string(),
    period: z.enum(['day', 'month']),
    used: z.number().int(),
    quota: z.number().int(),
    remaining: z.number().int(),
    rate_limit_per_minute: z.number().int(),
    rate_limit_remaining: z.number().int().meta({ description: 'extension: requests left in the current minute' }),
    rate_limit_reset_seconds: z.number().int().meta({ description: 'extension: seconds until the current minute ends' }),
  })
  .meta({ id: 'UsageSummary' });

export const ApproveResult = z
  .object({ entityId: z.string(), status: z.enum(['approved', 'suggested']), candidateId: z.string(), decisionId: z.string() })
  .meta({ id: 'ApproveResult' });

export const Problem = z
  .object({
    type: z.string().meta({ format: 'uri', description: '{site_url}/errors/<slug>' }),
    title: z.string(),
    status: z.number().int(),
    code: z.string(),
    detail: z.string().optional(),
    instance: z.string().meta({ description: 'the request path' }),
    request_id: z.string().optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional().meta({ description: 'each invalid field' }),
    retry_after: z.number().int().optional(),
  })
  .meta({ id: 'Problem' });

export const checkBody = z
  .object({
    text: passageText.meta({ description: 'the passage to check, at most 50,000 characters' }),
    chapter: chapterRef.optional().meta({ description: 'extension: the chapter id the passage belongs to; canon from later chapters is not used' }),
    line: chapterLine.optional().meta({
      description: 'extension: the line of that chapter the passage begins at (story time inside the chapter: a state change anchored later in it does not hold yet); without it, the passage is read as of the whole chapter; without chapter it is not used',
    }),
  })
  .meta({ id: 'ConflictCheckRequest' });

export const ConflictHit = z
  .object({
    id: z.string(),
    severity: z.enum(severities),
    kind: z.enum(conflictKinds),
    episode: z.string().nullable().optional(),
    title: z.string(),
    rationale: z.string(),
    refs: z.array(z.string()),
  })
  .meta({ id: 'ConflictHit' });
export const ConflictCheckResult = z.object({ conflicts: z.array(ConflictHit) }).meta({ id: 'ConflictCheckResult' });

export const timelineQueryParams = z.object({
  ...pageQuery,
  from: intFromQuery(chapterOrdinal).optional().meta({ type: 'integer', minimum: 0, maximum: maxChapterOrdinal, description: 'first chapter ordinal, inclusive' }),
  to: intFromQuery(chapterOrdinal).optional().meta({ type: 'integer', minimum: 0, maximum: maxChapterOrdinal, description: 'last chapter ordinal, inclusive' }),
});
const Beat = z.object({ id: z.string(), summary: z.string(), entities: z.array(z.string()) }).meta({ id: 'Beat' });
export const TimelineEntry = z
  .object({ id: z.string(), chapter: z.string(), ordinal: z.number().int(), beats: z.array(Beat) })
  .meta({ id: 'TimelineEntry' });
export const TimelineEnvelope = z
  .object({ data: z.array(TimelineEntry), timeline: z.array(TimelineEntry), has_more: z.boolean(), next_starting_after: z.string().optional() })
  .meta({ id: 'TimelineList' });
