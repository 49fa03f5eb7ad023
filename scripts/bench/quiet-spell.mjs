#!/usr/bin/env node
/**
 * The first job after a quiet spell: what an app that enqueues now and then meets (a sign-up a minute), which a
 * benchmark at a steady rate never shows. For each peer, on a fresh database (or a flushed Redis), a worker at
 * concurrency 10 and a producer in this process (queue `pickup`, one pg-boss creates); five warm-up jobs (the first
 * timed: a fresh process's first job), then a job after each gap of `BENCH_GAPS` seconds (default
 * 0.2,15,0.2,15,0.2,15,0.2), each timed from just before `enqueue()` to its return and to the body's start. A pool
 * that closes its idle connections (pg's default: after 10 s) pays a new connection, its authentication and its
 * prepared statements on the first enqueue after the gap.
 *
 * Needs `npm run build`. BENCH_PEERS (default `ours,graphile-worker,floor`; any adapter of `peers/`, `redis-server` on
 * the PATH for a Redis one; `floor` is a bare committed INSERT on one connection kept open through the spell).
 * DATABASE_URL as for `npm run bench`, else an embedded PostgreSQL.
 */
import { loadavg } from 'node:os';
import IORedis from 'ioredis';
import { startPostgres } from './embedded-pg.mjs';
import { median, pg, sleep, withDatabase } from './lib.mjs';
import { startRedis } from './peers/redis.mjs';

const peers = (process.env.BENCH_PEERS ?? 'ours,graphile-worker,floor').split(',').filter(Boolean);
const gaps = (process.env.BENCH_GAPS ?? '0.2,15,0.2,15,0.2,15,0.2').split(',').map(Number);
/**
 * The floor: a bare committed INSERT of one bigint into a one-column table, on ONE connection kept open through the
 * spell (so what a gap costs the server and the disk alone). No worker: its "body" is its commit.
 */
const floor = {
  label: 'floor: kept connection, bare INSERT',
  store: 'pg',
  async prepare({ url }) {
    return { url };
  },
  async worker() {
    return { stop: async () => {} };
  },
  async producer({ url }, { onCommitted }) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('create table floor_jobs (n bigint)');
    const insert = { name: 'floor_insert', text: 'insert into floor_jobs values ($1)' };
    return {
      async enqueue(_queue, data) {
        await client.query({ ...insert, values: [data.n] });
        onCommitted();
      },
      close: () => client.end(),
    };
  },
};
const adapters = Object.fromEntries(
  await Promise.all(
    peers.map(async (peer) => [
      peer,
      peer === 'floor' ? floor : await import(`./peers/${peer}.mjs`),
    ]),
  ),
);

console.log(
  `quiet spell, load average ${loadavg()[0].toFixed(2)} at the start; gaps ${gaps.join(', ')} s`,
);
const server = await startPostgres({ log: (line) => console.log(line) });
const redisServer = peers.some((p) => adapters[p].store === 'redis') ? await startRedis() : null;
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();

/** A fresh store for `peer` and how to drop it. */
async function freshStore(peer, index) {
  if (adapters[peer].store === 'redis') {
    const redis = new IORedis(redisServer.url);
    await redis.flushall();
    await redis.quit();
    return { target: { redisUrl: redisServer.url }, drop: async () => {} };
  }
  const database = `quiet_${peer.replace(/\W/g, '_')}_${index}`;
  await admin.query(`create database ${database}`);
  return {
    target: { url: withDatabase(server.url, database) },
    drop: () => admin.query(`drop database if exists ${database} with (force)`),
  };
}

/** Times each job of `peer` after its gap: `{ gap, enqueue, pickup }` in ms. */
async function measure(peer, index) {
  const adapter = adapters[peer];
  const store = await freshStore(peer, index);
  const context = await adapter.prepare(store.target);
  let started = () => undefined;
  const worker = await adapter.worker(context, {
    queue: 'pickup',
    concurrency: 10,
    onJob: () => started(performance.now()),
  });
  const producer = await adapter.producer(context, {
    onCommitted: () => started(performance.now()),
  });
  const samples = [];
  let n = 0;
  const one = async () => {
    const body = new Promise((resolve) => (started = resolve));
    const from = performance.now();
    await producer.enqueue('pickup', { n: n++, t: Date.now() });
    const enqueued = performance.now();
    return { enqueue: enqueued - from, pickup: (await body) - from };
  };
  try {
    // the first job of a fresh producer and worker: its statements prepared, its code cold
    samples.push({ gap: 'boot', ...(await one()) });
    for (let warm = 1; warm < 5; warm++) await one();
    for (const gap of gaps) {
      await sleep(gap * 1_000);
      samples.push({ gap, ...(await one()) });
    }
  } finally {
    await producer.close();
    await worker.stop();
    await store.drop();
  }
  return samples;
}

const rows = [];
for (const [index, peer] of peers.entries()) {
  const samples = await measure(peer, index);
  const label = adapters[peer].label ?? peer;
  for (const s of samples)
    console.log(
      `  ${label.padEnd(36)} ${s.gap === 'boot' ? 'first job ' : `after ${String(s.gap).padStart(4)} s`}: enqueue ${s.enqueue.toFixed(1).padStart(6)} ms, body started ${s.pickup.toFixed(1).padStart(6)} ms`,
    );
  rows.push({ label, samples });
}

const spells = ['boot', ...[...new Set(gaps)].sort((a, b) => a - b)];
const heading = (gap) => (gap === 'boot' ? 'first job' : `after ${gap} s`);
console.log(`\n| peer | ${spells.map((g) => `${heading(g)}: enqueue / body, ms`).join(' | ')} |`);
console.log(`|---|${spells.map(() => '---|').join('')}`);
for (const { label, samples } of rows) {
  const cells = spells.map((gap) => {
    const these = samples.filter((s) => s.gap === gap);
    return `${median(these.map((s) => s.enqueue)).toFixed(1)} / ${median(these.map((s) => s.pickup)).toFixed(1)}`;
  });
  console.log(`| ${label} | ${cells.join(' | ')} |`);
}
console.log(`(medians; load average ${loadavg()[0].toFixed(2)} at the end)`);

await admin.end();
await redisServer?.stop();
await server.stop();
