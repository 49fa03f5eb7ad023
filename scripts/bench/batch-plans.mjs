/**
 * Small batches and the plan cache: `driver.enqueueMany()` of 2, 5, 20 and 100 requests over ONE connection, on a
 * table of 200,000 finished rows with statistics (a busy queue's), printing for each size what a batch costs — wall
 * time and the server's CPU — and how PostgreSQL planned the batch statement on that connection
 * (`pg_prepared_statements`: generic plans reused, custom plans made). A statement planned custom on every execution
 * pays its planning each time; the enqueue statements are written so that PostgreSQL settles on their generic plan
 * after five executions on every version the suite runs on (`enqueue-generic-plans.spec.ts`).
 *
 * `npm run build && node scripts/bench/batch-plans.mjs` (DATABASE_URL or an embedded PostgreSQL, fsync and synchronous
 * commit on; the server's CPU is read from `/proc` only when it runs on this machine). BENCH_BATCHES (default 300)
 * batches a size, after 10 untimed.
 */
import { loadavg } from 'node:os';
import { cpuOf, serverOf } from './cpu-use.mjs';
import { startPostgres } from './embedded-pg.mjs';
import { freshDatabase, jobsPg, poolAt, preciseNow, request } from './lib.mjs';

const SIZES = [2, 5, 20, 100];
const BATCHES = Number(process.env.BENCH_BATCHES ?? 300);

const server = await startPostgres();
const db = await freshDatabase(server.url, { poolSize: 2 });
try {
  const { rows } = await db.pool.query(`select version() as v`);
  console.log(`${rows[0].v.split(',')[0]}; load average ${loadavg()[0].toFixed(1)} at start`);
  await db.pool.query(
    `insert into x_jobs (id, run_id, name, queue, input, idempotency_key, state, max_attempts, run_at, created_at,
       updated_at, finished_at)
     select gen_random_uuid(), gen_random_uuid(), 'bench.noop', 'bench', '{}', 'seed:' || g, 'done', 3, now(), now(),
       now(), now()
     from generate_series(1, 200000) g`,
  );
  await db.pool.query('analyze x_jobs');
  for (const size of SIZES) {
    // a pool of one connection a size: its plan cache counts this size's executions alone
    const { pool, executor } = poolAt(db.url, { poolSize: 1 });
    try {
      const postgres = await serverOf(pool);
      const driver = jobsPg.postgresJobDriver({ executor });
      const batch = () =>
        driver.enqueueMany(Array.from({ length: size }, () => request('bench', 'bench.noop')));
      for (let i = 0; i < 10; i++) await batch();
      const started = preciseNow();
      const cpu = await cpuOf(postgres, async () => {
        for (let i = 0; i < BATCHES; i++) await batch();
      });
      const wall = (preciseNow() - started) / BATCHES;
      const plans = await pool.query(
        `select generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements
         where statement like '%insert into x_jobs%' order by generic_plans + custom_plans desc limit 1`,
      );
      const { generic, custom } = plans.rows[0] ?? {};
      const serverMs = cpu.serverMs === undefined ? '?' : (cpu.serverMs / BATCHES).toFixed(3);
      console.log(
        `  ${String(size).padStart(3)} requests a batch: ${wall.toFixed(3)} ms a batch, server CPU ${serverMs} ms a ` +
          `batch; the batch statement planned generic ${generic}, custom ${custom} times`,
      );
    } finally {
      await pool.end();
    }
  }
} finally {
  await db.drop();
  await server.stop();
}
