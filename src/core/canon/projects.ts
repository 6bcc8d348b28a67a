import type { PrismaClient } from '../../generated/prisma/client.ts';
import { newId } from '../../ids.ts';
import { LoreError } from '../errors.ts';
import { rows, statement, type SqlClient } from '../../db/sql.ts';

const ownedProject = statement('owned_project', `SELECT 1 FROM "Project" WHERE id = $1 AND "accountId" = $2`);
const projectEntity = statement('project_entity', `SELECT 1 FROM "Entity" WHERE id = $1 AND "projectId" = $2`);

export const projectNotFound = (projectId: string) => new LoreError('not_found', `Project ${projectId} not found.`);
export const entityNotFound = (projectId: string, entityId: string) =>
  new LoreError('not_found', `Entity ${entityId} not found in project ${projectId}.`);

export class ProjectService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly sql: SqlClient,
  ) {}

  /** Another account's project is reported exactly like a missing one. */
  async requireOwned(accountId: string, projectId: string): Promise<void> {
    const found = await rows(this.sql, ownedProject, [projectId, accountId]);
    if (found.length === 0) throw projectNotFound(projectId);
  }

  async requireEntity(projectId: string, entityId: string): Promise<void> {
    const found = await rows(this.sql, projectEntity, [entityId, projectId]);
    if (found.length === 0) throw entityNotFound(projectId, entityId);
  }

  async create(accountId: string, input: { name: string; description?: string; initialScope?: string }): Promise<{ id: string }> {
    const row = await this.prisma.project.create({
      data: { id: newId('prj'), accountId, name: input.name, description: input.description ?? '', initialScope: input.initialScope },
      select: { id: true },
    });
    return row;
  }
}
