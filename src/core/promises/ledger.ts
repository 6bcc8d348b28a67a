// The promise ledger (issue 27): each promise entity's setup and payoff chapters, the entities it involves and its
// status, read as of a chapter: a promise set up later is not owed yet, one paid off later is still open there. An
// open promise is at risk once more than `atRiskAfter` chapters have passed since its setup.
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { PromiseStatus } from '../../generated/prisma/enums.ts';
import type { TxClient } from '../canon/canon.ts';
import { unknownChapter } from '../canon/storyTime.ts';

export const defaultAtRiskAfter = 10;

/** A bundle entity's ledger line, as the bundle gives it (keys and chapter ids). */
type BundlePromise = { key: string; promise?: { set_up_in?: string; paid_off_in?: string; involves: string[]; status?: PromiseStatus } };

/** Writes (or replaces) the ledger lines of the bundle's promises; `idOf` and `chapterIdOf` resolve its keys and chapter ids. */
export async function recordPromiseLines(
  tx: TxClient,
  projectId: string,
  entities: BundlePromise[],
  idOf: (key: string) => string,
  chapterIdOf: (externalId: string) => string,
): Promise<void> {
  const lines = entities.flatMap((e) =>
    e.promise
      ? [{
          entityId: idOf(e.key),
          setUpChapterId: e.promise.set_up_in ? chapterIdOf(e.promise.set_up_in) : null,
          paidOffChapterId: e.promise.paid_off_in ? chapterIdOf(e.promise.paid_off_in) : null,
          status: e.promise.status ?? (e.promise.paid_off_in ? 'paid' : 'open'),
          involves: [...new Set(e.promise.involves.map(idOf))],
        }]
      : [],
  );
  if (lines.length === 0) return;
  await tx.$executeRaw`
    INSERT INTO "PromiseLedger" ("entityId", "projectId", "setUpChapterId", "paidOffChapterId", status, involves)
    SELECT x.entity_id, ${projectId}, x.set_up, x.paid_off, x.status::"PromiseStatus", ARRAY(SELECT jsonb_array_elements_text(x.involves))
    FROM jsonb_to_recordset(${JSON.stringify(lines.map((l) => ({ entity_id: l.entityId, set_up: l.setUpChapterId, paid_off: l.paidOffChapterId, status: l.status, involves: l.involves })))}::jsonb)
      AS x(entity_id text, set_up text, paid_off text, status text, involves jsonb)
    ON CONFLICT ("entityId") DO UPDATE SET "setUpChapterId" = EXCLUDED."setUpChapterId", "paidOffChapterId" = EXCLUDED."paidOffChapterId",
      status = EXCLUDED.status, involves = EXCLUDED.involves`;
}

export type LedgerLine = {
  id: string;
  name: string;
  approval: 'approved' | 'suggested';
  /** as of the chapter asked about */
  status: PromiseStatus;
  set_up_in: string | null;
  paid_off_in: string | null;
  involves: { id: string; name: string }[];
  /** chapters since its setup, up to the chapter asked about (else the last); null without a setup */
  age: number | null;
  at_risk: boolean;
  /** its payoff chapter comes before its setup chapter */
  paid_before_set_up: boolean;
};

export class PromiseLedgerService {
  constructor(private readonly prisma: PrismaClient) {}

  /** The project's promises as of chapter `asOf` (else after the last chapter), by setup, then name. */
  async list(projectId: string, asOf: string | undefined, atRiskAfter: number): Promise<LedgerLine[]> {
    const [chapters, promises] = await Promise.all([
      this.prisma.chapter.findMany({ where: { projectId }, select: { id: true, externalId: true, ordinal: true }, orderBy: [{ ordinal: 'asc' }, { id: 'asc' }] }),
      this.prisma.entity.findMany({
        where: { projectId, type: 'promise' },
        select: { id: true, name: true, status: true, ledger: { select: { setUpChapterId: true, paidOffChapterId: true, status: true, involves: true } } },
        orderBy: { name: 'asc' },
      }),
    ]);
    const byId = new Map(chapters.map((c) => [c.id, c]));
    const at = asOf === undefined ? undefined : chapters.find((c) => c.externalId === asOf);
    if (asOf !== undefined && !at) throw unknownChapter(asOf);
    const now = at?.ordinal ?? Infinity;
    const involved = [...new Set(promises.flatMap((p) => p.ledger?.involves ?? []))];
    const names = new Map(
      (involved.length ? await this.prisma.entity.findMany({ where: { projectId, id: { in: involved } }, select: { id: true, name: true } }) : []).map((e) => [e.id, e.name]),
    );
    const lines: (LedgerLine & { setUpOrdinal: number })[] = [];
    for (const p of promises) {
      const setUp = p.ledger?.setUpChapterId ? byId.get(p.ledger.setUpChapterId) : undefined;
      const paid = p.ledger?.paidOffChapterId ? byId.get(p.ledger.paidOffChapterId) : undefined;
      if (setUp && setUp.ordinal > now) continue;
      const paidYet = paid !== undefined && paid.ordinal <= now;
      const status: PromiseStatus = p.ledger?.status === 'dropped' ? 'dropped' : paidYet || (p.ledger?.status === 'paid' && !paid) ? 'paid' : 'open';
      const age = setUp ? chapters.filter((c) => c.ordinal > setUp.ordinal && c.ordinal <= now).length : null;
      lines.push({
        id: p.id,
        name: p.name,
        approval: p.status,
        status,
        set_up_in: setUp?.externalId ?? null,
        paid_off_in: paidYet ? paid.externalId : null,
        involves: (p.ledger?.involves ?? []).filter((id) => names.has(id)).map((id) => ({ id, name: names.get(id)! })),
        age,
        at_risk: status === 'open' && age !== null && age > atRiskAfter,
        paid_before_set_up: paid !== undefined && setUp !== undefined && paid.ordinal < setUp.ordinal,
        setUpOrdinal: setUp?.ordinal ?? -Infinity,
      });
    }
    return lines.sort((a, b) => a.setUpOrdinal - b.setUpOrdinal).map(({ setUpOrdinal: _, ...line }) => line);
  }
}
