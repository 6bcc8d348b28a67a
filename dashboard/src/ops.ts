// The dashboard's GraphQL operations, one named file each in graph/operations/dashboard (validated against the schema
// by test/dashboard/operations.test.ts).
import auditEntries from '../../graph/operations/dashboard/AuditEntries.graphql?raw';
import chapterList from '../../graph/operations/dashboard/ChapterList.graphql?raw';
import chapterText from '../../graph/operations/dashboard/ChapterText.graphql?raw';
import checkPassage from '../../graph/operations/dashboard/CheckPassage.graphql?raw';
import createEntity from '../../graph/operations/dashboard/CreateEntity.graphql?raw';
import createFact from '../../graph/operations/dashboard/CreateFact.graphql?raw';
import createProject from '../../graph/operations/dashboard/CreateProject.graphql?raw';
import decide from '../../graph/operations/dashboard/Decide.graphql?raw';
import deleteEntity from '../../graph/operations/dashboard/DeleteEntity.graphql?raw';
import entities from '../../graph/operations/dashboard/Entities.graphql?raw';
import entityDetail from '../../graph/operations/dashboard/EntityDetail.graphql?raw';
import mentionMap from '../../graph/operations/dashboard/MentionMap.graphql?raw';
import openConflicts from '../../graph/operations/dashboard/OpenConflicts.graphql?raw';
import projectNames from '../../graph/operations/dashboard/ProjectNames.graphql?raw';
import projects from '../../graph/operations/dashboard/Projects.graphql?raw';
import relationshipGraph from '../../graph/operations/dashboard/RelationshipGraph.graphql?raw';
import retconFact from '../../graph/operations/dashboard/RetconFact.graphql?raw';
import retireFact from '../../graph/operations/dashboard/RetireFact.graphql?raw';
import reviewQueue from '../../graph/operations/dashboard/ReviewQueue.graphql?raw';
import searchEntities from '../../graph/operations/dashboard/SearchEntities.graphql?raw';
import settleConflict from '../../graph/operations/dashboard/SettleConflict.graphql?raw';
import signIn from '../../graph/operations/dashboard/SignIn.graphql?raw';
import timeline from '../../graph/operations/dashboard/Timeline.graphql?raw';
import updateEntity from '../../graph/operations/dashboard/UpdateEntity.graphql?raw';
import usageAndAudit from '../../graph/operations/dashboard/UsageAndAudit.graphql?raw';

export const ops = {
  auditEntries, chapterList, chapterText, checkPassage, createEntity, createFact, createProject, decide, deleteEntity, entities,
  entityDetail, mentionMap, openConflicts, projectNames, projects, relationshipGraph, retconFact, retireFact, reviewQueue, searchEntities,
  settleConflict, signIn, timeline, updateEntity, usageAndAudit,
};

export const entityTypes = ['character', 'location', 'object', 'event', 'rule', 'promise'] as const;
export type EntityType = (typeof entityTypes)[number];

export type Project = { id: string; name: string; description: string; lastUpdated: string; entityCount: number; pendingReviewCount: number; conflictCount: number };
export type EntityHeading = { id: string; canonicalName: string; type: EntityType; aliases: string[]; approvalStatus: string };
export type StoryFact = { id: string; text: string; from: string | null; until: string | null };
export type Provenance = { proposedBy: string; proposedAt: string; content: string | null; source: string; decision: string | null; decidedBy: string | null; decidedAt: string | null };
export type Fact = StoryFact & {
  status: string; source: string; createdAt: string; createdBy: string | null; provenance: Provenance | null;
  retiredAt?: string | null; retiredBy?: string | null; replacedById?: string | null;
};
export type EntityDetail = {
  id: string; key: string; type: EntityType; canonicalName: string; aliases: string[]; approvalStatus: string; confidence: number | null;
  version: number; currentState: Record<string, unknown>; approvedFacts: StoryFact[]; suggestedFacts: StoryFact[]; facts: Fact[]; history: Fact[];
  relationships: { id: string; kind: string; direction: 'outgoing' | 'incoming'; other: { id: string; canonicalName: string; type: EntityType } }[];
};
export type Mention = { id: string; chapter: string; line: number; snippet: string };
export type GraphData = { nodes: { id: string; label: string; type: string }[]; edges: { from: string; to: string; kind: string }[] };
export type ChapterHeading = { id: string; title: string; ordinal: number };
export type Candidate = {
  id: string; kind: 'entity' | 'fact' | 'promise'; entityId: string | null; entityName: string | null; proposal: { name?: string; type?: string; aliases?: string[] } | null;
  facts: { id: string | null; text: string; from: string | null; until: string | null; status: string; secret: boolean }[];
  promise: { setUpIn: string | null; paidOffIn: string | null; status: 'open' | 'paid' | 'dropped' | null } | null;
  content: string | null; source: string; proposedBy: string; createdAt: string;
};
export type CitedCanon = { id: string; kind: 'entity' | 'fact' | 'relationship' | 'beat'; label: string; entityId: string | null; chapter: string | null };
export type Conflict = { id: string; severity: string; kind: string; title: string; rationale: string; refs: string[]; cited?: CitedCanon[]; episode: string | null };
export type ChapterName = { entityId: string; canonicalName: string; aliases: string[]; type: EntityType; line: number; column: number };
