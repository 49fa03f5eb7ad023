#!/usr/bin/env node
/**
 * `npm run bench`: throughput and latency figures, printed with their units, floors and targets (docs/performance.md). Not a test: it measures.
 *
 * Needs `npm run build` first (it reads libs/*\/dist). Uses DATABASE_URL when set; otherwise starts an embedded
 * PostgreSQL with its defaults — fsync and synchronous_commit ON — in a temporary directory it removes afterwards.
 * BENCH_RUNS (default 3) runs of each throughput figure, reported as their median.
 * BENCH_ONLY=enqueue,drain,pickup,arrival,redis picks sections (`redis`: ours on a throwaway redis-server, skipped
 * without one on the PATH); `endurance` (a million finished rows, a held snapshot for 90 s), `purge` (a million finished
 * rows purged under a drain) and `counters` (the drain with and without counters, interleaved) run only when named.
 */
import { cpus, loadavg } from 'node:os';
import { benchArrival } from './arrival.mjs';
import { benchCounterCost } from './counter-cost.mjs';
import { benchDrain } from './drain.mjs';
import { startPostgres } from './embedded-pg.mjs';
import { benchEndurance } from './endurance.mjs';
import { benchEnqueue } from './enqueue.mjs';
import { pg, walFlushes } from './lib.mjs';
import { benchPurge } from './purge.mjs';
import { benchPickup } from './pickup.mjs';
import { benchRedis } from './redis.mjs';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const only = new Set((process.env.BENCH_ONLY ?? 'enqueue,drain,pickup,arrival,redis').split(','));

/** What one WAL flush cost over the whole run: the floor under every committed statement above. */
async function reportWalFlushes(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { fsyncs, ms } = await walFlushes(client);
    if (!fsyncs || !ms) return; // a server without track_wal_io_timing
    console.log('\nDisk');
    console.log(
      `  WAL flushes over the run: ${Math.round(fsyncs).toLocaleString('en-US')}, mean ${(ms / fsyncs).toFixed(2)} ms each (every commit waits for one)`,
    );
  } finally {
    await client.end();
  }
}

const server = await startPostgres({ log: (line) => console.log(line) });
try {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  const { rows } = await client.query(
    `select version() as version, current_setting('fsync') as fsync, current_setting('synchronous_commit') as sync`,
  );
  await client.end();
  const { version, fsync, sync } = rows[0];
  console.log(`${version.split(',')[0]}; fsync=${fsync}, synchronous_commit=${sync}`);
  console.log(
    `${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${loadavg()[0].toFixed(1)} at start; ` +
      `Node ${process.version}; medians of ${runs} runs`,
  );
  if (only.has('enqueue')) await benchEnqueue(server.url, runs);
  if (only.has('drain')) await benchDrain(server.url, runs);
  if (only.has('pickup')) await benchPickup(server.url);
  if (only.has('arrival')) await benchArrival(server.url);
  if (only.has('redis')) await benchRedis(runs);
  if (only.has('endurance')) await benchEndurance(server.url);
  if (only.has('purge')) await benchPurge(server.url);
  if (only.has('counters')) await benchCounterCost(server.url);
  await reportWalFlushes(server.url);
  console.log(`\nload average ${loadavg()[0].toFixed(1)} at the end`);
} finally {
  await server.stop();
}
