/**
 * `npm run bench`'s Redis section: ours on Redis (`@ultimat3/jobs-redis`, built code, the `ours-redis` adapter of
 * `bench:peers`) on a throwaway `redis-server` (no persistence, `noeviction`), through the same scenarios as
 * `bench:peers` — pickup at 20/s, 500/s from 4 processes and a burst of 1,000; bulk enqueue of 50 batches of 1,000;
 * the drain of those 50,000 no-op jobs in one worker process at concurrency 10; serial enqueue of 2,000 after 3,000
 * untimed — `runs` times on a flushed server, then the medians beside the targets they are held to. Skipped, with a
 * line saying why, when `redis-server` is not on the PATH.
 */
import IORedis from 'ioredis';
import { median, percentile } from './lib.mjs';
import * as oursRedis from './peers/ours-redis.mjs';
import { redisServerVersion, startRedis } from './peers/redis.mjs';
import {
  bulkEnqueue,
  drain,
  DRAIN_JOBS,
  pickupScenarios,
  SERIAL_JOBS,
  serialEnqueue,
} from './peers/scenarios.mjs';

// this section's own queues (their jobs declared as `peers.<queue>` by ours-common.mjs)
const DRAIN_QUEUE = 'redis-drain';
const SERIAL_QUEUE = 'redis-serial';

/** One run on a flushed server: the figures of each scenario. */
async function runOnce(url, flush) {
  await flush();
  const context = await oursRedis.prepare({ redisUrl: url });
  const pickup = await pickupScenarios('ours-redis', context);
  const producer = await oursRedis.producer(context);
  try {
    const bulk = await bulkEnqueue(producer, DRAIN_QUEUE, DRAIN_JOBS / 1_000);
    const drained = await drain('ours-redis', oursRedis, context, DRAIN_QUEUE, DRAIN_JOBS);
    const serial = await serialEnqueue(producer, SERIAL_QUEUE, SERIAL_JOBS);
    return {
      'pickup 20/s p50': percentile(pickup.steady, 50),
      'pickup 20/s p99': percentile(pickup.steady, 99),
      'pickup 500/s p99': percentile(pickup.rate500, 99),
      'burst p99': percentile(pickup.burst, 99),
      bulk,
      drain: drained.perSecond,
      serial,
    };
  } finally {
    await producer.close();
  }
}

const ROWS = [
  ['pickup 20/s p50', 'pickup, 20/s from another process: p50', 'ms', '≤ 1'],
  ['pickup 20/s p99', 'pickup, 20/s: p99', 'ms', '≤ 5'],
  ['pickup 500/s p99', 'pickup, 500/s from 4 processes: p99', 'ms', ''],
  ['burst p99', 'pickup, burst of 1,000: p99', 'ms', ''],
  ['bulk', 'bulk enqueue, batches of 1,000', 'jobs/s', ''],
  ['drain', 'drain 50,000 no-op jobs, one process', 'jobs/s', '≥ 30,000'],
  ['serial', 'serial enqueue', 'jobs/s', '≥ 8,000'],
];

const show = (value, unit) =>
  unit === 'ms' ? value.toFixed(1) : Math.round(value).toLocaleString('en-US');

/** Runs the section `runs` times and prints each run and the medians. */
export async function benchRedis(runs) {
  console.log(
    '\nRedis (ours on a throwaway redis-server, no persistence; the scenarios of bench:peers)',
  );
  if (redisServerVersion() === null) {
    console.log('  skipped: redis-server is not on the PATH (apt-get install -y redis-server)');
    return;
  }
  const server = await startRedis();
  const admin = new IORedis(server.url);
  try {
    const all = [];
    for (let run = 1; run <= runs; run++) {
      const figures = await runOnce(server.url, () => admin.flushall());
      all.push(figures);
      const line = ROWS.map(([key, , unit]) => `${key} ${show(figures[key], unit)}`).join(', ');
      console.log(`  run ${run} of ${runs}: ${line}`);
    }
    console.log(`  medians of ${runs} runs:`);
    for (const [key, label, unit, target] of ROWS) {
      const value = median(all.map((figures) => figures[key]));
      console.log(
        `    ${label}: ${show(value, unit)} ${unit}${target ? ` (target ${target})` : ''}`,
      );
    }
  } finally {
    admin.disconnect();
    await server.stop();
  }
}
