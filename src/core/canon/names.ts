// Keys are unique per project, and so are names and aliases, compared without case: recall, the MCP tools and the
// mention finder take a name to mean one entity. Writers check under the project's writer lock (holdProject), so racing
// writes cannot both take a name.
import { LoreError } from '../errors.ts';
import type { TxClient } from './canon.ts';

export type NameClash = { name: string; entityId: string; entityName: string };

/** A key for a new entity: its name as a slug, numbered when the project has it already. */
export async function freeEntityKey(tx: TxClient, projectId: string, name: string): Promise<string> {
  const base = name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 80).replace(/^-+|-+$/g, '') || 'entity';
  const taken = new Set((await tx.entity.findMany({ where: { projectId, key: { startsWith: base } }, select: { key: true } })).map((e) => e.key));
  let key = base;
  for (let n = 2; taken.has(key); n++) key = `${base}-${n}`;
  return key;
}

/** The names among `names` that another entity of the project (not `exceptEntityId`) already has as name or alias. */
export async function nameClashes(tx: TxClient, projectId: string, names: string[], exceptEntityId?: string): Promise<NameClash[]> {
  const wanted = [...new Set(names.map((n) => n.trim().toLowerCase()))];
  if (wanted.length === 0) return [];
  return tx.$queryRaw<NameClash[]>`
    SELECT n.name, e.id AS "entityId", e.name AS "entityName"
    FROM "Entity" e CROSS JOIN LATERAL unnest(array_prepend(e.name, e.aliases)) AS n(name)
    WHERE e."projectId" = ${projectId} AND e.id IS DISTINCT FROM ${exceptEntityId ?? null}
      AND lower(n.name) = ANY(${wanted}::text[])
    ORDER BY e.id, n.name`;
}

/** Fails with 409 name_taken, naming each clash and the field it came from, when a name is another entity's. */
export async function requireNamesFree(tx: TxClient, projectId: string, fields: { path: string; name: string }[], exceptEntityId?: string): Promise<void> {
  const clashes = await nameClashes(tx, projectId, fields.map((f) => f.name), exceptEntityId);
  // Within the write itself too: a name given twice, or an alias equal to the name.
  const seen = new Map<string, string>();
  const errors: { path: string; message: string }[] = [];
  for (const field of fields) {
    const lower = field.name.trim().toLowerCase();
    const clash = clashes.find((c) => c.name.toLowerCase() === lower);
    if (clash) errors.push({ path: field.path, message: `"${field.name}" is already a name of ${clash.entityName} (${clash.entityId})` });
    else if (seen.has(lower)) errors.push({ path: field.path, message: `"${field.name}" is given twice (also at ${seen.get(lower)})` });
    seen.set(lower, field.path);
  }
  if (errors.length > 0) throw new LoreError('name_taken', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
}
