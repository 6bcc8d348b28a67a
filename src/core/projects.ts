import type { PrismaClient } from '../generated/prisma/client.ts';
import { newId } from '../ids.ts';
import { LoreError } from './errors.ts';

export class ProjectService {
  constructor(private readonly prisma: PrismaClient) {}

  /** Another account's project is reported exactly like a missing one. */
  async requireOwned(accountId: string, projectId: string): Promise<void> {
    const found = await this.prisma.project.findFirst({ where: { id: projectId, accountId }, select: { id: true } });
    if (!found) throw new LoreError('not_found', `Project ${projectId} not found.`);
  }

  async requireEntity(projectId: string, entityId: string): Promise<void> {
    const found = await this.prisma.entity.findFirst({ where: { id: entityId, projectId }, select: { id: true } });
    if (!found) throw new LoreError('not_found', `Entity ${entityId} not found in project ${projectId}.`);
  }

  async create(accountId: string, input: { name: string; description?: string; initialScope?: string }): Promise<{ id: string }> {
    const row = await this.prisma.project.create({
      data: { id: newId('prj'), accountId, name: input.name, description: input.description ?? '', initialScope: input.initialScope },
      select: { id: true },
    });
    return row;
  }
}
