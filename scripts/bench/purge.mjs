/**
 * Retention under load: a million finished rows purged by the default sweep's `x_jobs:done` target (keyset batches of
 * 1,000) while ONE worker drains another queue of the same table. Prints the longest purge statement, the drain rate
 * before and during the purge, and checks that no row younger than the retention was touched.
 */
import {
  fillQueue,
  freshDatabase,
  jobs,
  jobsPg,
  median,
  noopJob,
  preciseNow,
  registryOf,
  report,
  sleep,
  whole,
} from './lib.mjs';

const FINISHED = Number(process.env.BENCH_PURGE_ROWS ?? 1_000_000);
const DRAIN = Number(process.env.BENCH_PURGE_DRAIN_JOBS ?? 500_000);
const CONCURRENCY = 10;
const DAY = 24 * 3_600_000;
const WINDOW_MS = 5_000;

const drainJob = noopJob('bench.purge.drain', 'purge-drain');

/** Inserts `count` done rows that finished 8 days ago (past the 7-day retention), in 100,000-row statements. */
async function seedFinished(db, count) {
  for (let from = 0; from < count; from += 100_000) {
    await db.pool.query(
      `insert into x_jobs (id, run_id, name, queue, input, idempotency_key, state, attempt, max_attempts,
         priority, run_at, created_at, updated_at, finished_at)
       select gen_random_uuid(), gen_random_uuid(), 'bench.purge.old', 'purge-old', '{"n":0}',
         'old:' || g, 'done', 1, 3, 0, t, t, t, t
       from generate_series($1::int, $2::int) g, lateral (select now() - interval '8 days' - g * interval '1 ms' as t) x`,
      [from, Math.min(count, from + 100_000) - 1],
    );
  }
}

/** `executor` with every purge batch timed into `times` (ms). */
function timedExecutor(executor, times) {
  const timed = Object.create(executor);
  timed.query = async (text, values) => {
    if (!text.includes('with doomed')) return executor.query(text, values);
    const started = preciseNow();
    try {
      return await executor.query(text, values);
    } finally {
      times.push(preciseNow() - started);
    }
  };
  return timed;
}

export async function benchPurge(serverUrl) {
  console.log(
    `\nPurge: ${whole(FINISHED)} finished rows removed in keyset batches of 1,000 while one worker (concurrency ${CONCURRENCY}) drains another queue`,
  );
  const db = await freshDatabase(serverUrl);
  let worker;
  try {
    await seedFinished(db, FINISHED);
    await fillQueue(
      jobsPg.postgresJobDriver({ executor: db.executor }),
      'purge-drain',
      drainJob.name,
      DRAIN,
    );
    await db.pool.query('vacuum analyze x_jobs');

    const times = [];
    const driver = jobsPg.postgresJobDriver({ executor: timedExecutor(db.executor, times) });
    worker = jobs.jobWorker({ driver, registry: registryOf(drainJob), concurrency: CONCURRENCY });
    await worker.start();
    await sleep(2_000); // warm up
    const beforeFrom = worker.stats().completed;
    const beforeAt = preciseNow();
    await sleep(WINDOW_MS);
    const before = ((worker.stats().completed - beforeFrom) * 1000) / (preciseNow() - beforeAt);

    const target = driver
      .purgeTargets(jobs.resolveRetention())
      .find((t) => t.name === 'x_jobs:done');
    const nowMs = Date.now();
    const duringFrom = worker.stats().completed;
    const started = preciseNow();
    const removed = await target.purgeExpired(nowMs);
    const elapsed = preciseNow() - started;
    const drained = worker.stats().completed - duringFrom;
    const during = (drained * 1000) / elapsed;
    const ranOut = worker.stats().completed >= DRAIN;
    await worker.stop();
    worker = undefined;

    const { rows } = await db.pool.query(
      `select count(*) filter (where name = 'bench.purge.old')::int as old,
              count(*) filter (where name = $1 and state = 'done')::int as young_done,
              count(*) filter (where name = $1 and state <> 'done')::int as live
       from x_jobs`,
      [drainJob.name],
    );
    const [check] = rows;
    const sorted = [...times].sort((a, b) => a - b);
    report(
      'purge: rows removed',
      whole(removed),
      `${whole((removed * 1000) / elapsed)} rows/s over ${whole(elapsed)} ms, ${times.length} statements`,
    );
    report(
      'purge: longest statement',
      `${sorted.at(-1).toFixed(1)} ms`,
      `median ${median(sorted).toFixed(1)} ms, p99 ${sorted[Math.floor(sorted.length * 0.99)].toFixed(1)} ms`,
    );
    report('drain before the purge', `${whole(before)} jobs/s`, `${WINDOW_MS / 1000} s window`);
    report(
      'drain during the purge',
      `${whole(during)} jobs/s`,
      `${((during / before) * 100).toFixed(0)} % of before${ranOut ? '; the queue ran dry: raise BENCH_PURGE_DRAIN_JOBS' : ''}`,
    );
    report(
      'rows younger than the retention kept',
      check.old === 0 && check.young_done + check.live === DRAIN ? 'all' : 'NOT ALL',
      `old rows left ${check.old}; drained rows done ${whole(check.young_done)}, still live ${whole(check.live)} of ${whole(DRAIN)}`,
    );
  } finally {
    await worker?.stop();
    await db.drop();
  }
}
