#!/usr/bin/env node
/**
 * `node scripts/bench/backfill-throttle.mjs`: the backfill throttle measured. A 60,000-row pass at `rate: 5` and
 * `batch: 1000` (60 pages, one every 200 ms: 12 s expected) on the embedded PostgreSQL, while a request — a primary-key
 * read on the same `pg` pool the sweep writes through — runs at 50/s; the same request alone first. Prints the pass's
 * wall time against 12 s, and the request's p50 / p99 idle and during the pass. Not a test: it measures and prints.
 *
 * BENCH_THROTTLE_ROWS (default 60,000), BENCH_THROTTLE_RATE (default 5). Uses DATABASE_URL when set.
 */
import { loadavg } from 'node:os';
import {
  declareSweep,
  jobs,
  jobsPg,
  openDataSource,
  pg,
  seedDatabase,
} from './backfill-common.mjs';
import { startPostgres } from './embedded-pg.mjs';

const ROWS = Number(process.env.BENCH_THROTTLE_ROWS ?? 60_000);
const RATE = Number(process.env.BENCH_THROTTLE_RATE ?? 5);
const REQUESTS_PER_SECOND = 50;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** Runs the request at REQUESTS_PER_SECOND until `until()` holds; answers each latency (ms). */
async function requests(pool, until) {
  const times = [];
  let n = 0;
  while (!until()) {
    const started = performance.now();
    await pool.query('select title from bf_bench_posts where id = $1', [1 + (n++ % ROWS)]);
    times.push(performance.now() - started);
    await sleep(Math.max(0, 1_000 / REQUESTS_PER_SECOND - (performance.now() - started)));
  }
  return times;
}

async function main() {
  const server = await startPostgres({ log: (m) => console.log(m) });
  try {
    const url = await seedDatabase(server.url, `bf_bench_throttle_${process.pid}`, ROWS);
    // ONE pool: the driver, the ledger, the sweep's writes and the request all share its 4 connections
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const executor = jobsPg.pgPoolExecutor(pool);
    const driver = jobsPg.postgresJobDriver({ executor });
    const ledger = jobsPg.postgresBackfillLedger({ executor });
    const dataSource = await openDataSource(url, 1);
    const pageTimes = [];
    const sweep = declareSweep({
      dataSource,
      pool,
      ledger,
      rate: RATE,
      onPage: () => pageTimes.push(performance.now()),
    });
    const registry = new jobs.JobRegistry();
    registry.register(sweep);
    const worker = jobs.jobWorker({ driver, registry, concurrency: 1, pollIntervalMs: 50 });
    await worker.start();
    const uninstall = jobs.setJobsFacade(
      jobs.directJobsFacade({ driver, onEnqueued: (q) => worker.signalEnqueued(q) }),
    );

    const idleUntil = performance.now() + 5_000;
    const idle = await requests(pool, () => performance.now() > idleUntil);

    const started = performance.now();
    await sweep.enqueue({});
    let done = false;
    const watch = (async () => {
      while (worker.stats().completed === 0) await sleep(5);
      done = true;
    })();
    const during = await requests(pool, () => done);
    await watch;
    const seconds = (performance.now() - started) / 1_000;
    const expected = Math.ceil(ROWS / 1_000) / RATE;

    console.log(
      `\nBackfill throttle: ${ROWS.toLocaleString('en-US')} rows, batch 1,000, rate ${RATE}/s`,
    );
    console.log(
      `  pass: ${seconds.toFixed(2)} s enqueue to completion (expected ${expected.toFixed(1)} s; ${(((seconds - expected) / expected) * 100).toFixed(1)} %)`,
    );
    console.log(
      `  pages written: ${pageTimes.length}, first to last write ${((pageTimes.at(-1) - pageTimes[0]) / 1_000).toFixed(2)} s`,
    );
    console.log(
      `  request idle:   p50 ${percentile(idle, 50).toFixed(2)} ms, p99 ${percentile(idle, 99).toFixed(2)} ms (${idle.length} requests)`,
    );
    console.log(
      `  request during: p50 ${percentile(during, 50).toFixed(2)} ms, p99 ${percentile(during, 99).toFixed(2)} ms (${during.length} requests) — p99 ${(percentile(during, 99) / percentile(idle, 99)).toFixed(2)}× idle`,
    );
    console.log(
      `  load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    uninstall();
    await worker.stop();
    await dataSource.destroy();
    await pool.end();
  } finally {
    await server.stop();
  }
}

await main();
