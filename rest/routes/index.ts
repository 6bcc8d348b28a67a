import type { RouteDef } from '../route.ts';
import { auditLog } from './audit.ts';
import { brief } from './brief.ts';
import { promises } from './promises.ts';
import { knowledge } from './knowledge.ts';
import { approve } from './canon.ts';
import { checkChapter, deleteChapter, listChapters, putChapter, readChapter } from './chapters.ts';
import { exportProject } from './export.ts';
import { createFact, entityDependents, entityHistory, factDependents, retireFact, updateFact } from './facts.ts';
import { graph } from './graph.ts';
import { checkConflicts, timeline } from './llm.ts';
import { createEntity, deleteEntity, readEntity, updateEntity } from './entities.ts';
import { createProject, deleteProject, listProjects } from './projects.ts';
import { mentions, recall } from './recall.ts';
import { createRelationship, deleteRelationship, updateRelationship } from './relationships.ts';
import { approveCandidate, listCandidates, propose, rejectCandidate } from './review.ts';
import { search } from './search.ts';
import { usage } from './usage.ts';

export const routes: RouteDef[] = [listProjects, createProject, recall, mentions, brief, promises, knowledge, checkConflicts, approve, search, timeline, graph, usage, auditLog, exportProject, propose, listCandidates, approveCandidate, rejectCandidate,
  createFact, updateFact, retireFact, factDependents, entityDependents, entityHistory, listChapters, readChapter, putChapter, deleteChapter, checkChapter,
  createEntity, readEntity, updateEntity, deleteEntity, createRelationship, updateRelationship, deleteRelationship, deleteProject];
