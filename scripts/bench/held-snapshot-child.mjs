/**
 * The held-snapshot run of `endurance.mjs`, in a process of its own (forked by it): a steady producer and one worker
 * over the database at argv[2] for HOLD_S seconds while another session sits idle in a transaction. Its own process,
 * so the memory it reports is a worker's, not the heap the bench's earlier sections left the parent's V8 sized for
 * (a million-row table built, 50,000-job queues filled and drained). Sends `{ windows }` to its parent and exits:
 * per WINDOW_S window, the jobs completed a second, the backlog at its end and `process.memoryUsage()`.
 */
import {
  jobs,
  jobsPg,
  noopJob,
  pg,
  poolAt,
  preciseNow,
  registryOf,
  request,
  sleep,
} from './lib.mjs';

const [url, holdS, rate, windowS] = process.argv.slice(2);
const HOLD_S = Number(holdS);
const RATE = Number(rate);
const WINDOW_S = Number(windowS);

const job = noopJob('bench.endurance', 'endurance');
// the pool `freshDatabase` gives the bench's other sections
const { pool, executor } = poolAt(url);
const holder = new pg.Client({ connectionString: url });
await holder.connect();
const windows = [];
try {
  await holder.query('begin isolation level repeatable read');
  await holder.query('select count(*) from x_jobs');
  const driver = jobsPg.postgresJobDriver({ executor });
  const worker = jobs.jobWorker({ driver, registry: registryOf(job), concurrency: 10 });
  await worker.start();
  const started = preciseNow();
  let produced = 0;
  let lastCompleted = 0;
  let nextWindow = started + WINDOW_S * 1000;
  const closeWindow = () => {
    const completed = worker.stats().completed;
    windows.push({
      perSecond: (completed - lastCompleted) / WINDOW_S,
      backlog: produced - completed,
      memory: process.memoryUsage(),
    });
    lastCompleted = completed;
    nextWindow += WINDOW_S * 1000;
  };
  while (preciseNow() - started < HOLD_S * 1000) {
    const due = Math.floor(((preciseNow() - started) * RATE) / 1000);
    while (produced + 100 <= due) {
      await driver.enqueueMany(
        Array.from({ length: 100 }, () => request('endurance', 'bench.endurance')),
      );
      produced += 100;
    }
    if (preciseNow() >= nextWindow) closeWindow();
    await sleep(10);
  }
  // the loop ends on the last window's boundary: close it too, so the figures reach HOLD_S
  if (windows.length < Math.floor(HOLD_S / WINDOW_S)) closeWindow();
  await worker.stop();
} finally {
  await holder.query('rollback').catch(() => {});
  await holder.end();
  await pool.end();
}
process.send({ windows }, () => process.exit(0));
