#!/usr/bin/env node
/**
 * Where a bulk enqueue's wall time goes, batch by batch, ours beside graphile-worker 0.16 (`add_jobs`, the bulk peer
 * `npm run bench:peers` finds fastest), through the peers bench's own adapters and rows (50 batches of 1,000, keys
 * `n:<n>` for ours):
 *
 *   npm run build && node scripts/bench/bulk-batches.mjs
 *
 * Three tables per round, each a fresh database: ours on an empty table, graphile-worker 0.16 on its empty table, and
 * ours on a table that already holds what `bench:peers`' pickup scenarios leave before its bulk runs — 15,200
 * finished jobs, each written ready, then running, then done (their dead versions not yet vacuumed), keyed
 * `n:1000000…` so that the bulk's keys fall between theirs in the live-key index, as keys drawn from anywhere do.
 * Each line: jobs/s, the first, second and median batch (ms, wall), the process's CPU and garbage collections over
 * the 50 batches, the CPU all of the embedded server's processes spent a batch (backends and background processes,
 * from /proc: bind-time parsing and WAL flushes included), and what PostgreSQL counted for the batch statement
 * (`pg_stat_statements`: execution ms, buffers hit and WAL bytes a batch). BENCH_ROUNDS (default 3). DATABASE_URL as
 * for `npm run bench` (its server must load pg_stat_statements; no server CPU is read then); else an embedded server.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { statOf } from './cpu-use.mjs';
import { startPostgres } from './embedded-pg.mjs';
import { pg, withDatabase } from './lib.mjs';
import * as ours from './peers/ours.mjs';
import * as graphile016 from './peers/graphile-worker-016.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BATCHES = 50;
/** What the pickup scenarios of `bench:peers` leave in ours' table: 4 × 3,000 warm-up jobs and 3,200 timed ones. */
const USED_ROWS = 15_200;

const server = await startPostgres();
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await admin.query('create extension if not exists pg_stat_statements');

/** The batches of `bulkEnqueue` in `peers/scenarios.mjs`: built before the clock starts, held to the end. */
const batchesOf = () =>
  Array.from({ length: BATCHES }, (_, b) =>
    Array.from({ length: 1_000 }, (_, i) => ({ n: 10_000_000 + b * 1_000 + i, t: 0 })),
  );

/** Fills ours' fresh table as the pickup scenarios leave it: every row finished, its earlier versions dead. */
async function used(producer, url) {
  for (let b = 0; b < USED_ROWS / 800; b++)
    await producer.enqueueBatch(
      'pickup',
      Array.from({ length: 800 }, (_, i) => ({ n: 1_000_000 * (1 + (b % 4)) + b * 800 + i, t: 0 })),
    );
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    `update x_jobs set state = 'running', attempt = 1, worker_id = 'w', claim = gen_random_uuid(),
       lease_expires_at = now() + interval '30 seconds'`,
  );
  await client.query(
    `update x_jobs set state = 'done', worker_id = null, claim = null, lease_expires_at = null, finished_at = now()`,
  );
  await client.end();
}

/** What pg_stat_statements counted for the statement in `pattern` since the reset, a call each. */
async function statementCost(database, pattern) {
  const { rows } = await admin.query(
    `select sum(calls)::int as calls, sum(total_exec_time)::float8 as ms, sum(shared_blks_hit)::float8 as hit,
       sum(wal_bytes)::float8 as wal
     from pg_stat_statements s join pg_database d on d.oid = s.dbid
     where d.datname = $1 and s.query like $2`,
    [database, pattern],
  );
  const { calls, ms, hit, wal } = rows[0];
  return calls ? { ms: ms / calls, hit: hit / calls, wal: wal / calls } : undefined;
}

/**
 * Waits (up to 5 s) until no session but the admin's is connected to `database`: a peer's `close()` may answer before
 * its pool's last connection has gone (graphile-worker 0.16's `release()` does), and a `drop … with (force)` that
 * terminated that connection would surface as an 'error' on a pool nobody listens to any more, ending this process.
 */
async function disconnected(database) {
  for (const until = Date.now() + 5_000; Date.now() < until;) {
    const { rows } = await admin.query(
      'select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [database],
    );
    if (rows[0].n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * CPU ms each process of the embedded server has used, by pid: its backends and its background processes (WAL
 * writer, checkpointer…) as `pg_stat_activity` lists them, the admin's own session left out. What the server spent on
 * a batch counted whole — `pg_stat_statements` times the execution only, not the parameters' parsing at bind (a
 * 1,000-element text[] literal: ~0.1 ms) nor the WAL writer's flushes. Undefined for a server elsewhere.
 */
async function serverUsage() {
  if (!server.embedded) return undefined;
  const { rows } = await admin.query(
    'select pid from pg_stat_activity where pid <> pg_backend_pid()',
  );
  const used = new Map();
  for (const { pid } of rows) {
    const stat = statOf(pid); // undefined: gone since the listing
    if (stat !== undefined) used.set(pid, stat.ms);
  }
  return used;
}

/** Milliseconds of server CPU between two {@link serverUsage} readings (a process born between them from 0). */
function serverMs(before, after) {
  if (before === undefined || after === undefined) return undefined;
  let ms = 0;
  for (const [pid, used] of after) ms += used - (before.get(pid) ?? 0);
  return ms;
}

let made = 0;

/** One session of 50 batches by `peer` into a fresh database; prints its line. */
async function session(label, peer, pattern, { prefill = false } = {}) {
  const database = `bulk_batches_${process.pid}_${made++}`;
  await admin.query(`create database ${database}`);
  const url = withDatabase(server.url, database);
  try {
    const context = await peer.prepare({ url });
    const producer = await peer.producer(context);
    try {
      if (prefill) await used(producer, url);
      const batches = batchesOf();
      const gcs = [];
      const observer = new PerformanceObserver((list) => gcs.push(...list.getEntries()));
      observer.observe({ entryTypes: ['gc'] });
      await admin.query('select pg_stat_statements_reset()');
      const times = [];
      const used = await serverUsage();
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (const batch of batches) {
        const at = performance.now();
        await producer.enqueueBatch('drain', batch);
        times.push(performance.now() - at);
      }
      const wall = performance.now() - started;
      const { user, system } = process.cpuUsage(cpu);
      const serverCpu = serverMs(used, await serverUsage());
      await new Promise((resolve) => setTimeout(resolve, 10)); // the last GC entries are delivered on a later turn
      observer.disconnect();
      const cost = await statementCost(database, pattern);
      const median = [...times].sort((a, b) => a - b)[BATCHES / 2];
      const gcMs = gcs.reduce((sum, entry) => sum + entry.duration, 0);
      console.log(
        `  ${label.padEnd(30)} ${String(Math.round((BATCHES * 1_000 * 1_000) / wall)).padStart(6)}/s` +
          `  batch 1st ${times[0].toFixed(1)} 2nd ${times[1].toFixed(1)} median ${median.toFixed(1)} ms` +
          `  process ${((user + system) / 1_000 / BATCHES).toFixed(2)} ms a batch, ${gcs.length} GCs ${gcMs.toFixed(0)} ms` +
          (serverCpu === undefined ? '' : `  server CPU ${(serverCpu / BATCHES).toFixed(1)} ms`) +
          (cost
            ? `  statement ${cost.ms.toFixed(2)} ms, ${Math.round(cost.hit)} buffers, ${Math.round(cost.wal / 1_000)} kB WAL a batch`
            : ''),
      );
    } finally {
      await producer.close();
    }
  } finally {
    await disconnected(database);
    await admin.query(`drop database if exists ${database} with (force)`);
  }
}

const { rows } = await admin.query('select version() as v');
console.log(`${rows[0].v.split(',')[0]}; ${BATCHES} batches of 1,000 a session; ${ROUNDS} rounds`);
for (let round = 1; round <= ROUNDS; round++) {
  console.log(`round ${round}${round === 1 ? ' (this process cold)' : ''}`);
  await session('ours, empty table', ours, '%with one as materialized%');
  await session('graphile-worker 0.16, empty', graphile016, '%graphile_worker.add_jobs%');
  await session('ours, 15,200 finished rows', ours, '%with one as materialized%', {
    prefill: true,
  });
}
await admin.end();
await server.stop();
