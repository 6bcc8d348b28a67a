// Assembles the schema from one file per root field and type.
import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.ts';
import './types/Project.ts';
import './types/Entity.ts';
import './types/Fact.ts';
import './queries/projects.ts';
import './queries/recall.ts';
import './queries/entity.ts';
import './queries/mentions.ts';
import './queries/search.ts';
import './queries/graph.ts';
import './queries/usage.ts';
import './queries/conflicts.ts';
import './queries/timeline.ts';
import './mutations/createProject.ts';
import './mutations/approveFact.ts';
import './mutations/importBundle.ts';
import './mutations/checkConflicts.ts';
import './mutations/resolveConflict.ts';

export const schema = builder.toSchema({ sortSchema: false });

export const printedSchema = () => printSchema(lexicographicSortSchema(schema));
