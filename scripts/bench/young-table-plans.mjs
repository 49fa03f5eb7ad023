#!/usr/bin/env node
/**
 * A plan cached while `x_jobs` was young. PostgreSQL runs a prepared statement on a generic plan after five executions
 * and keeps it until the table's statistics change (an ANALYZE, autovacuum's included). On each of two fresh databases
 * (autovacuum off for x_jobs, so every ANALYZE is the driver's or this script's), this prepares the woken claim
 * (`SQL_CLAIM_WOKEN`) on one session, runs it on its generic plan (`plan_cache_mode = force_generic_plan`, each claim
 * rolled back) and prints how it reaches x_jobs and the buffers it reads: planned on the empty table; then the same
 * session once 3,000 rows (`BENCH_ROWS`) were enqueued through the driver and all but 9 of them claimed.
 *
 * - over an executor bound to one connection (`shared: false`), from which the driver never analyses: the plan made
 *   on the empty table stays, a sequential scan of the whole table; then after `analyze x_jobs`;
 * - over the pool (`pgPoolExecutor`): the driver analysed the table once it had enqueued 1,000 rows (`YoungTable`), so
 *   the claim was planned again, by the primary key.
 *
 * `npm run build && node scripts/bench/young-table-plans.mjs` (DATABASE_URL as for `npm run bench`, else an embedded
 * PostgreSQL).
 */
import { startPostgres } from './embedded-pg.mjs';
import { fillQueue, freshDatabase, jobsPg, pg } from './lib.mjs';

const server = await startPostgres();
/** Rows enqueued before the claim shown (`BENCH_ROWS`, default 3,000), all but 9 of them claimed first. */
const ROWS = Number(process.env.BENCH_ROWS ?? 3_000);
const whole = (n) => n.toLocaleString('en-US');

/** The claim of up to `limit` rows on the session's prepared claim. */
const claim = (limit) =>
  `execute claim(null, 'w', 'q', 'n', ${limit}, 0, null, '{}', 30000, false)`;

/** The claim of up to 10 rows on the cached plan, rolled back: how the update reaches x_jobs, and its buffers. */
async function show(session, label) {
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
    `  ${label}\n    ${plan[reach]?.trim()}; the claim read ${total.trim().replace('Buffers: ', '')}`,
  );
}

for (const shared of [false, true]) {
  const db = await freshDatabase(server.url);
  await db.pool.query('alter table x_jobs set (autovacuum_enabled = false)');
  const executor = { shared, query: (text, values) => db.executor.query(text, values) };
  const driver = jobsPg.postgresJobDriver({ executor });
  const session = new pg.Client({ connectionString: db.url });
  await session.connect();
  await session.query('set plan_cache_mode = force_generic_plan');
  await session.query(`prepare claim as ${jobsPg.SQL_CLAIM_WOKEN}`);
  console.log(
    shared
      ? 'enqueued over the pool (the driver analyses a young table):'
      : 'enqueued over an executor bound to one connection (the driver never analyses from it):',
  );
  await show(session, 'planned on the empty table');
  await fillQueue(driver, 'q', 'n', ROWS);
  await driver.close(); // the driver's look at the statistics, if it started one, has ended
  for (let left = ROWS - 9; left > 0; left -= 997) await session.query(claim(Math.min(997, left)));
  // the first scan of the claim index after a claim marks that claim's entries dead, whatever the plan: done here,
  // rolled back, so the claim shown reads what every later claim reads
  await session.query('begin');
  await session.query(claim(10));
  await session.query('rollback');
  await show(
    session,
    `the same session, ${whole(ROWS)} rows enqueued (${whole(ROWS - 9)} claimed)`,
  );
  if (!shared) {
    await session.query('analyze x_jobs');
    await show(session, 'after analyze x_jobs');
  }
  await session.end();
  await db.drop();
}
await server.stop();
