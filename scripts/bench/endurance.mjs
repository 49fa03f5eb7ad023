/**
 * Two known traps of queue tables, measured rather than assumed:
 * - a big table: the drain with a million FINISHED rows present (the hot index covers live rows only, so it should
 *   not notice them);
 * - a held snapshot: a steady producer and one worker for BENCH_HOLD_S seconds (default 90) while another session sits
 *   idle in a transaction, so no dead tuple the claims and acks leave can be pruned — peers decayed from ~3,000 to
 *   ~400 jobs/s within 90 s this way. Printed per window: what was completed and the backlog left, so a decay shows.
 *
 * Opt-in (it takes a few minutes): BENCH_ONLY=endurance.
 */
import { fileURLToPath } from 'node:url';
import { spawnChild } from './fork-child.mjs';
import {
  fillQueue,
  freshDatabase,
  jobs,
  jobsPg,
  noopJob,
  preciseNow,
  registryOf,
  report,
  sleep,
  whole,
} from './lib.mjs';

const FINISHED = Number(process.env.BENCH_FINISHED_ROWS ?? 1_000_000);
const DRAIN = Number(process.env.BENCH_DRAIN_JOBS ?? 50_000);
const HOLD_S = Number(process.env.BENCH_HOLD_S ?? 90);
const RATE = Number(process.env.BENCH_HOLD_RATE ?? 3_000);
const WINDOW_S = 15;

const job = noopJob('bench.endurance', 'endurance');

/** Inserts `count` rows that ended `done`, in one server-side statement per 100,000. */
async function addFinished(db, count) {
  for (let from = 0; from < count; from += 100_000) {
    await db.pool.query(
      `insert into x_jobs (id, run_id, name, queue, input, idempotency_key, state, attempt, max_attempts,
         priority, run_at, created_at, updated_at, finished_at)
       select gen_random_uuid(), gen_random_uuid(), 'bench.endurance', 'endurance', '{"n":0}'::jsonb,
         'old:' || g, 'done', 1, 3, 0, now(), now(), now(), now()
       from generate_series($1::int, $2::int) g`,
      [from, Math.min(count, from + 100_000) - 1],
    );
  }
  await db.pool.query('vacuum analyze x_jobs');
}

function startWorker(driver) {
  return jobs.jobWorker({ driver, registry: registryOf(job), concurrency: 10 });
}

/** Drains DRAIN jobs with (and without) a million finished rows in the table. */
async function bigTable(serverUrl, finished) {
  const db = await freshDatabase(serverUrl);
  try {
    if (finished > 0) await addFinished(db, finished);
    const driver = jobsPg.postgresJobDriver({ executor: db.executor });
    await fillQueue(driver, 'endurance', 'bench.endurance', DRAIN);
    await db.pool.query('vacuum analyze x_jobs');
    const worker = startWorker(driver);
    const started = preciseNow();
    await worker.start();
    while (worker.stats().completed < DRAIN) await sleep(2);
    const perSecond = (DRAIN * 1000) / (preciseNow() - started);
    await worker.stop();
    return perSecond;
  } finally {
    await db.drop();
  }
}

/**
 * RATE jobs/s produced in 100-row batches for HOLD_S seconds, drained by one worker, a snapshot held throughout: in a
 * child process of its own (`held-snapshot-child.mjs`), so its memory is a worker's own.
 */
async function heldSnapshot(serverUrl) {
  const db = await freshDatabase(serverUrl);
  try {
    // its one message is its figures; it exits after sending them
    const { first } = await spawnChild(
      fileURLToPath(new URL('./held-snapshot-child.mjs', import.meta.url)),
      [db.url, String(HOLD_S), String(RATE), String(WINDOW_S)],
    );
    return first.windows;
  } finally {
    await db.drop();
  }
}

export async function benchEndurance(serverUrl) {
  console.log(`\nBig table: drain of ${whole(DRAIN)} no-op jobs, one worker, concurrency 10`);
  const empty = await bigTable(serverUrl, 0);
  report('drain, no finished rows', `${whole(empty)} jobs/s`);
  const big = await bigTable(serverUrl, FINISHED);
  report(
    `drain, ${whole(FINISHED)} finished rows present`,
    `${whole(big)} jobs/s`,
    `${((big / empty - 1) * 100).toFixed(0)} % against the empty table`,
  );

  console.log(
    `\nHeld snapshot: ${whole(RATE)} jobs/s produced for ${HOLD_S} s, one worker, another session idle in a transaction`,
  );
  const windows = await heldSnapshot(serverUrl);
  const mb = (bytes) => (bytes / 1_048_576).toFixed(1);
  windows.forEach((w, i) =>
    report(
      `seconds ${i * WINDOW_S}–${(i + 1) * WINDOW_S}`,
      `${whole(w.perSecond)} jobs/s`,
      `backlog ${whole(w.backlog)} at the end of the window; RSS ${mb(w.memory.rss)} MB, heap used ${mb(w.memory.heapUsed)} MB`,
    ),
  );
  // the worker runs in a process of its own (with the producer): its memory should be flat once warm
  const at30 = windows[30 / WINDOW_S - 1]?.memory;
  const atEnd = windows.at(-1)?.memory;
  if (at30 && atEnd && windows.length > 2)
    report(
      `worker process RSS at 30 s → ${windows.length * WINDOW_S} s`,
      `${mb(at30.rss)} → ${mb(atEnd.rss)} MB`,
      `${((atEnd.rss / at30.rss - 1) * 100).toFixed(1)} % (target within 10 %); heap used ${mb(at30.heapUsed)} → ${mb(atEnd.heapUsed)} MB`,
    );
}
