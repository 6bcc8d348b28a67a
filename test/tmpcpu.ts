import { readFileSync } from 'node:fs';
import pg from 'pg';
const [P, E, A] = ['prj_01m8f4yt1szvextb27tknf92cv', 'ent_01m8f4yt9amrqpwpsk3deshzrm', 'acc_01m8f4ysah6qv0p6dfabgzabfk'];
const c = new pg.Client({ connectionString: 'postgresql://postgres:postgres@127.0.0.1:5433/lore_bench_write28f' });
await c.connect();
const { rows: [{ pid }] } = await c.query('SELECT pg_backend_pid() AS pid');
const cpu = () => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
await c.query('BEGIN'); await c.query('SET LOCAL plan_cache_mode = force_generic_plan');
await c.query(readFileSync('prisma/migrations/20261127195000_write28f_state_edit_audit/migration.sql', 'utf8'));
await c.query(`UPDATE "Entity" SET version = version WHERE id = $1`, [E]);
const variants = process.argv.slice(2);
const res: Record<string, number[]> = {};
let n = 0;
for (let round = 0; round < 4; round++) for (const v of variants) {
  const text = readFileSync(v, 'utf8');
  const plain = v.includes('plain');
  const t = cpu();
  for (let i = 0; i < 100; i++) await c.query({ name: v.replace(/\W/g, ''), text, values: plain ? [P, A, E] : [P, A, E, `aud${n++}`, A, null, 'r', 'op', '{}', '2026-01-01T00:00:00.000', ['p', 'e']] });
  (res[v] ??= []).push((cpu() - t) / 100);
}
console.log(JSON.stringify(res));
await c.query('ROLLBACK'); await c.end();
