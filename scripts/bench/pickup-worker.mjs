/**
 * The worker process of the cross-process figures, spawned by `pickup.mjs` with an IPC channel.
 *
 * argv: <database url> <wake: "wake" | "poll">. It runs one worker serving queue `pickup` (concurrency 1) over a pool
 * whose executor counts every statement, plus — with "wake" — `startQueueWake` on a dedicated client. Each job sends
 * `{ type: 'started', id, at, marks }` (epoch ms, sub-ms precision; marks: when the wake arrived, when the claim that
 * found the row was sent and when it came back). Messages in: `{ type: 'count' }` answers
 * `{ type: 'count', statements }`; `{ type: 'stop' }` drains and exits.
 */
import { jobs, jobsPg, noopJob, pg, preciseNow, registryOf } from './lib.mjs';

const [url, mode] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 4 });
pool.on('error', () => {});
const inner = jobsPg.pgPoolExecutor(pool);
let statements = 0;
/** When this run's wake arrived, its claim was sent and came back with a row (epoch ms): the pickup's breakdown. */
let marks = {};
const executor = {
  // each statement on a pooled connection of its own, as the pool's executor: claims commit as a worker's do
  shared: inner.shared,
  async query(text, values) {
    statements++;
    const claim = text.includes("'claimed' as arm"); // SQL_CLAIM or SQL_CLAIM_WAITING
    const sent = preciseNow();
    const result = await inner.query(text, values);
    if (claim && result.rows.length > 0)
      marks = { ...marks, claimSent: sent, claimBack: preciseNow() };
    return result;
  },
};

const handle = noopJob('bench.pickup', 'pickup', ({ jobId }) => {
  process.send({ type: 'started', id: jobId, at: preciseNow(), marks });
  marks = {};
});
const driver = jobsPg.postgresJobDriver({ executor });
const worker = jobs.jobWorker({ driver, registry: registryOf(handle), concurrency: 1 });

let wake;
if (mode === 'wake') {
  wake = jobsPg.startQueueWake({
    listener: () => new pg.Client({ connectionString: url }),
    executor,
    onWake: (queue, sweepAfterMs) => {
      marks = { woke: preciseNow() };
      worker.signalEnqueued(queue, sweepAfterMs);
    },
    onLive: (live) => worker.setWakeLive(live),
  });
}

process.on('message', async (message) => {
  if (message.type === 'count') process.send({ type: 'count', statements });
  if (message.type === 'stop') {
    await worker.stop();
    await wake?.stop();
    await pool.end();
    process.exit(0);
  }
});

const live = wake ? await wake.ready() : false;
await worker.start();
process.send({ type: 'ready', live });
