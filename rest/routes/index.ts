import type { RouteDef } from '../route.ts';
import { approve } from './canon.ts';
import { graph } from './graph.ts';
import { checkConflicts, timeline } from './llm.ts';
import { createProject, listProjects } from './projects.ts';
import { mentions, recall } from './recall.ts';
import { search } from './search.ts';
import { usage } from './usage.ts';

export const routes: RouteDef[] = [listProjects, createProject, recall, mentions, checkConflicts, approve, search, timeline, graph, usage];
