// Keys are unique per project, and so are names and aliases, compared without case: recall, the MCP tools and the
// mention finder take a name to mean one entity. Writers check under the project's writer lock (holdProject), so racing
// writes cannot both take a name.
import { LoreError } from '../errors.ts';
import type { TxClient } from './canon.ts';

export type NameClash = { name: string; entityId: string; entityName: string };

/** A key for a new entity: its name as a slug, numbered when the project has it already. */
export async function freeEntityKey(tx: TxClient, projectId: string, name: string): Promise<string> {
  const base = keyBase(name);
  return freeKeyOf(base, (await tx.entity.findMany({ where: { projectId, key: { startsWith: base } }, select: { key: true } })).map((e) => e.key));
}

/** The slug of a name that freeEntityKey starts from. */
export const keyBase = (name: string) =>
  name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 80).replace(/^-+|-+$/g, '') || 'entity';

/** freeEntityKey with the project's keys that start with `base` already read. */
export function freeKeyOf(base: string, keys: string[]): string {
  const taken = new Set(keys);
  let key = base;
  for (let n = 2; taken.has(key); n++) key = `${base}-${n}`;
  return key;
}

/** The names among `names` that another entity of the project (not `exceptEntityId`) already has as name or alias. */
export async function nameClashes(tx: TxClient, projectId: string, names: string[], exceptEntityId?: string): Promise<NameClash[]> {
  const wanted = clashingNames(names);
  if (wanted.length === 0) return [];
  const [found] = await tx.$queryRawUnsafe<{ clashes: NameClash[] }[]>(`SELECT ${nameClashesSql('$1', '$2', '$3::text')} AS clashes`, projectId, wanted, exceptEntityId ?? null);
  return found.clashes;
}

/** Fails with 409 name_taken, naming each clash and the field it came from, when a name is another entity's. */
export async function requireNamesFree(tx: TxClient, projectId: string, fields: { path: string; name: string }[], exceptEntityId?: string): Promise<void> {
  requireNamesFreeOf(fields, await nameClashes(tx, projectId, fields.map((f) => f.name), exceptEntityId));
}

/** The names nameClashes looks for, for `nameClashesSql`. */
export const clashingNames = (names: string[]) => [...new Set(names.map((n) => n.trim().toLowerCase()))];

/**
 * SQL: nameClashes as a JSON array, for a writer's checks in one statement: `names` holds clashingNames, `except` the
 * entity to leave out (SQL expressions).
 */
export const nameClashesSql = (project: string, names: string, except: string) => `(
  SELECT COALESCE(json_agg(json_build_object('name', n.name, 'entityId', e.id, 'entityName', e.name) ORDER BY e.id, n.name), '[]')
  FROM "Entity" e CROSS JOIN LATERAL unnest(array_prepend(e.name, e.aliases)) AS n(name)
  WHERE lore_names_lower(e.name, e.aliases) && ${names}::text[] AND e."projectId" = ${project} AND e.id IS DISTINCT FROM ${except}
    AND lower(n.name) = ANY(${names}::text[]))`;

/** requireNamesFree with the clashes already read. */
export function requireNamesFreeOf(fields: { path: string; name: string }[], clashes: NameClash[]): void {
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
