#!/usr/bin/env node
/**
 * A plan cached while `x_jobs` was young. PostgreSQL runs a prepared statement on a generic plan after five executions
 * and keeps it until the table's statistics change (an ANALYZE, autovacuum's included). This prepares the woken claim
 * (`SQL_CLAIM_WOKEN`) on one session of a fresh database, then runs it on its generic plan (`plan_cache_mode =
 * force_generic_plan`, each claim rolled back) and prints how it reaches x_jobs and the buffers it reads: planned on
 * the empty table; then the same cached plan once 3,000 rows were enqueued and 2,991 of them claimed; then planned
 * afresh; then after `analyze x_jobs`.
 *
 * `npm run build && node scripts/bench/young-table-plans.mjs` (DATABASE_URL as for `npm run bench`, else an embedded
 * PostgreSQL).
 */
import { startPostgres } from './embedded-pg.mjs';
import { fillQueue, freshDatabase, jobsPg, pg } from './lib.mjs';

const server = await startPostgres();
const db = await freshDatabase(server.url);
const driver = jobsPg.postgresJobDriver({ executor: db.executor });
const session = new pg.Client({ connectionString: db.url });
await session.connect();
await session.query('set plan_cache_mode = force_generic_plan');
const prepare = () => session.query(`prepare claim as ${jobsPg.SQL_CLAIM_WOKEN}`);
const claim = (limit) =>
  `execute claim(null, 'w', 'q', 'n', ${limit}, 0, null, '{}', 30000, false)`;

/** The claim of up to 10 rows on the cached plan, rolled back: how the update reaches x_jobs, and its buffers. */
async function show(label) {
  await session.query('begin');
  const { rows } = await session.query(
    `explain (analyze, buffers, costs off, timing off, summary off) ${claim(10)}`,
  );
  await session.query('rollback');
  const plan = rows.map((r) => r['QUERY PLAN']);
  // the update's own line (the plan's first), then its buffers: the statement's whole execution, planning left out
  const total = /^ {2}Buffers:/.test(plan[1]) ? plan[1] : 'Buffers: none';
  const reach = plan.findIndex((line) =>
    /->\s+(Seq Scan|Index Scan|Bitmap Heap Scan)( using \S+)? on x_jobs j/.test(line),
  );
  console.log(
    `${label}\n  ${plan[reach]?.trim()}; the claim read ${total.trim().replace('Buffers: ', '')}`,
  );
}

await prepare();
await show('planned on the empty table');
await fillQueue(driver, 'q', 'n', 3_000);
for (let i = 0; i < 3; i++) await session.query(claim(997));
await show('the same plan, 3,000 rows in the table (2,991 claimed)');
await session.query('deallocate claim');
await prepare();
await show('planned afresh at 3,000 rows');
await session.query('analyze x_jobs');
await show('after analyze x_jobs');
await session.end();
await db.drop();
await server.stop();
