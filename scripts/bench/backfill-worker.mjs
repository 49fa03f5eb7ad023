/**
 * One worker process of the SIGKILL benchmark (`backfill-kill.mjs` spawns it): a job worker over the PostgreSQL
 * driver serving the sweep, printing one JSON line per page, its RSS when the sweep crosses 10 %, 50 % and 100 % of
 * the table, and `settled` once the pass ends. Killed without warning by its parent, twice.
 */
import { declareSweep, jobs, jobsPg, openDataSource, pg } from './backfill-common.mjs';

const url = process.env.BF_URL;
const total = Number(process.env.BF_ROWS);
const pool = new pg.Pool({ connectionString: url, max: 4 });
const executor = jobsPg.pgPoolExecutor(pool);
const driver = jobsPg.postgresJobDriver({ executor });
const ledger = jobsPg.postgresBackfillLedger({ executor });
const dataSource = await openDataSource(url);
const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

const marks = [0.1, 0.5, 1];
let pages = 0;
const sweep = declareSweep({
  dataSource,
  pool,
  ledger,
  rate: Number(process.env.BF_RATE ?? 200),
  onPage(ids) {
    pages += 1;
    const last = ids[ids.length - 1];
    // a resumed worker reports only the marks it crosses itself
    while (pages === 1 && marks.length > 0 && marks[0] * total < ids[0]) marks.shift();
    say({ event: 'page', first: ids[0], last, pages });
    while (marks.length > 0 && last >= marks[0] * total) {
      // after a full collection when the process allows one: what the pass holds, not what the GC has yet to free
      globalThis.gc?.();
      const { rss, heapUsed } = process.memoryUsage();
      say({ event: 'rss', at: marks.shift(), rss, heapUsed });
    }
  },
});
const registry = new jobs.JobRegistry();
registry.register(sweep);
const worker = jobs.jobWorker({
  driver,
  registry,
  concurrency: 1,
  // a killed worker's lease lapses in 3 s, so the next one rescues the run quickly
  visibilityTimeoutMs: 3_000,
  heartbeatIntervalMs: 1_000,
  pollIntervalMs: 100,
  idlePollMaxMs: 250,
});
await worker.start();
say({ event: 'ready', pid: process.pid });
const poll = setInterval(async () => {
  const stats = worker.stats();
  if (stats.completed + stats.deadLettered > 0) {
    clearInterval(poll);
    say({ event: 'settled', completed: stats.completed, pages });
    await worker.stop();
    await dataSource.destroy();
    await pool.end();
    process.exit(0);
  }
}, 100);
