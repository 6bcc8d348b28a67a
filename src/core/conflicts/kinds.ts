// The closed lists a ConflictHit draws from; documented in the README and the OpenAPI description.
export const conflictKinds = [
  'dead_character_active',
  'attribute_contradiction',
  'location_conflict',
  'relationship_contradiction',
  'rule_violation',
  'promise_broken',
  'knowledge_violation',
  'timeline_contradiction',
  'continuity_error',
] as const;
export type ConflictKind = (typeof conflictKinds)[number];

/** P1: breaks approved canon outright; P2: very likely contradicts it; P3: possible or minor inconsistency. */
export const severities = ['P1', 'P2', 'P3'] as const;
export type Severity = (typeof severities)[number];

/** A chapter checked in place costs one call per this many words started (chapterCheck.ts). */
export const wordsPerCall = 2_000;

export type ConflictDraft = {
  severity: Severity;
  kind: ConflictKind;
  episode: string | null;
  title: string;
  rationale: string;
  refs: string[];
  /** the passage's characters (start inclusive, end exclusive) of the words the deterministic core quotes */
  at?: TextSpan;
};
export type TextSpan = { start: number; end: number };
