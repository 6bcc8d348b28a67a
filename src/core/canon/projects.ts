import type { PrismaClient } from '../../generated/prisma/client.ts';
import { newId } from '../../ids.ts';
import { newProjectScope } from '../access/tiers.ts';
import { LoreError } from '../errors.ts';
import { holdUntilCommit, type TxClient } from './canon.ts';
import { rows, statement, type SqlClient } from '../../db/sql.ts';

const ownedProject = statement('owned_project', `SELECT 1 FROM "Project" WHERE id = $1 AND "accountId" = $2`);
const projectEntity = statement('project_entity', `SELECT 1 FROM "Entity" WHERE id = $1 AND "projectId" = $2`);

/** Creating a project and importing by a project's name take this lock, so they cannot both make one of that name. */
export const holdProjectName = (tx: TxClient, accountId: string, name: string) => holdUntilCommit(tx, JSON.stringify(['project name', accountId, name]));

/** An import or sync would make a project, and the key may not (see newProjectScope). */
export const newProjectRefused = (name: string) =>
  new LoreError(
    'insufficient_scope',
    `This API key lacks the scope ${newProjectScope} needed to create a project: the account has no project named "${name}". Import into an existing project with projectId (lore import --project), or use a key with ${newProjectScope} (pro and up).`,
  );

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

  /** A new project; its name must be new in the account (409 name_taken), so an import by name finds one project. */
  async create(accountId: string, input: { name: string; description?: string; initialScope?: string }): Promise<{ id: string }> {
    return this.prisma.$transaction(async (tx) => {
      await holdProjectName(tx, accountId, input.name);
      const existing = await tx.project.findFirst({ where: { accountId, name: input.name }, select: { id: true } });
      if (existing) {
        const message = `the account already has a project named "${input.name}" (${existing.id})`;
        throw new LoreError('name_taken', `name: ${message}.`, { errors: [{ path: 'name', message }] });
      }
      return tx.project.create({
        data: { id: newId('prj'), accountId, name: input.name, description: input.description ?? '', initialScope: input.initialScope },
        select: { id: true },
      });
    });
  }
}
