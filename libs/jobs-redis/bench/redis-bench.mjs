/**
 * Redis driver figures (built code: run `npm run build` first): serial enqueue (one awaited enqueue at a time), batch
 * enqueue (1,000 rows per script), and ONE worker draining no-op jobs at concurrency 10 — the same shape as
 * `scripts/bench/drain.mjs` on PostgreSQL. Starts its own throwaway redis-server. Prints figures with the load average.
 *
 *   node libs/jobs-redis/bench/redis-bench.mjs
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  ROOT,
  jobs,
  noopJob,
  preciseNow,
  registryOf,
  request,
  sleep,
  whole,
} from '../../../scripts/bench/lib.mjs';
import { startThrowawayRedis } from '../../../scripts/throwaway-redis.mjs';

const require = createRequire(import.meta.url);
const { redisJobDriver } = require(join(ROOT, 'libs', 'jobs-redis', 'dist', 'index.js'));
const { Redis } = require('ioredis');

const SERIAL = Number(process.env.BENCH_REDIS_SERIAL ?? 5_000);
const DRAIN = Number(process.env.BENCH_REDIS_DRAIN ?? 20_000);
const CONCURRENCY = 10;
const IDLE_S = Number(process.env.BENCH_REDIS_IDLE_S ?? 30);

const drainJob = noopJob('bench.redis.drain', 'redis-drain');
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

async function serialEnqueue(driver) {
  const started = preciseNow();
  for (let i = 0; i < SERIAL; i++) await driver.enqueue(request('redis-serial', 'bench.serial'));
  return (SERIAL * 1000) / (preciseNow() - started);
}

async function batchEnqueue(driver, total) {
  const started = preciseNow();
  for (let i = 0; i < total; i += 1_000) {
    const size = Math.min(1_000, total - i);
    await driver.enqueueMany(
      Array.from({ length: size }, () => request('redis-drain', 'bench.redis.drain')),
    );
  }
  return (total * 1000) / (preciseNow() - started);
}

/** Requests this process sent to Redis (each script call or command one request), read around a phase. */
let requests = 0;

async function drain(driver) {
  const worker = jobs.jobWorker({
    driver,
    registry: registryOf(drainJob),
    concurrency: CONCURRENCY,
  });
  const started = preciseNow();
  await worker.start();
  while (worker.stats().completed < DRAIN) await sleep(2);
  const elapsed = preciseNow() - started;
  await worker.stop();
  return { perSecond: (DRAIN * 1000) / elapsed, claims: worker.stats().claims };
}

/**
 * One idle worker (empty queue) for IDLE_S seconds of real time, per minute: the script calls it made (EVALSHA), and
 * every command the server ran (those inside scripts included; this bench's own INFO reads left out). The worker is
 * handed the driver's wake (as `redisBackend().startWake` does under JobsModule), measured once it is proven live.
 */
async function idle(driver, client) {
  const stats = async () => {
    const info = await client.info('commandstats');
    const counts = new Map(
      [...info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map(([, name, n]) => [name, Number(n)]),
    );
    const all = [...counts].filter(([name]) => name !== 'info').reduce((sum, [, n]) => sum + n, 0);
    return { all, scripts: (counts.get('evalsha') ?? 0) + (counts.get('eval') ?? 0) };
  };
  const worker = jobs.jobWorker({
    driver,
    registry: registryOf(noopJob('bench.redis.idle', 'redis-idle')),
    concurrency: 1,
  });
  await worker.start();
  const stopWake = driver.wake.listen(worker);
  while (!worker.stats().wakeLive) await sleep(5);
  await sleep(1_000);
  const before = await stats();
  await sleep(IDLE_S * 1_000);
  const after = await stats();
  await stopWake();
  await worker.stop();
  return {
    perMinute: ((after.all - before.all) * 60) / IDLE_S,
    scriptsPerMinute: ((after.scripts - before.scripts) * 60) / IDLE_S,
  };
}

const server = await startThrowawayRedis({ name: 'jobs-redis-bench' });
const client = new Redis(server.url);
const send = client.sendCommand.bind(client);
client.sendCommand = (...args) => {
  requests++;
  return send(...args);
};
try {
  const driver = redisJobDriver({ client, prefix: 'bench' });
  const commands = async () =>
    Number(/total_commands_processed:(\d+)/.exec(await client.info('stats'))[1]);
  console.log(`redis bench — load average before: ${load()}`);
  const serial = await serialEnqueue(driver);
  console.log(`serial enqueue: ${whole(serial)} jobs/s (${whole(SERIAL)} awaited one by one)`);
  const batch = await batchEnqueue(driver, DRAIN);
  console.log(`batch enqueue: ${whole(batch)} jobs/s (1,000 per enqueueMany)`);
  const before = await commands();
  const sentBefore = requests;
  const drained = await drain(driver);
  const used = (await commands()) - before;
  const sent = requests - sentBefore;
  console.log(
    `drain: ${whole(drained.perSecond)} no-op jobs/s, one worker at concurrency ${CONCURRENCY} ` +
      `(${whole(DRAIN)} jobs, ${whole(drained.claims)} claims, ${whole(used)} server commands, ` +
      `${(used / DRAIN).toFixed(2)} per job; ${whole(sent)} requests sent, ${(sent / DRAIN).toFixed(3)} per job)`,
  );
  const quiet = await idle(driver, client);
  console.log(
    `idle worker: ${quiet.scriptsPerMinute.toFixed(1)} script calls per minute ` +
      `(${quiet.perMinute.toFixed(1)} server commands counting those inside scripts; ${IDLE_S} s measured)`,
  );
  console.log(`load average after: ${load()}`);
} finally {
  client.disconnect();
  await server.stop();
}
