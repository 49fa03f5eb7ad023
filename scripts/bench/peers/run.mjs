#!/usr/bin/env node
/**
 * `npm run bench:peers`: ours beside graphile-worker 0.17 (batched) and 0.16, BullMQ (on a local redis-server) and
 * pg-boss 10, through the same scenarios in the same run, interleaved (ours, graphile-worker 0.17, 0.16, BullMQ,
 * pg-boss, then again), each
 * on a fresh database or a flushed Redis; one table of medians with each figure's ratio to the best peer. Each peer's
 * pickup starts after a CHECKPOINT and a second's pause, so no peer's latencies carry the previous peer's writes.
 *
 * Beside them, in the same rotation, the floors (`floor-pg.mjs`, `floor-pg-wake.mjs`, `floor-redis.mjs`): pseudo-peers
 * doing the least any library must on this machine (a bare committed INSERT, INSERT + NOTIFY → LISTEN, a bare EVALSHA,
 * LPUSH → BLPOP) through the same scenarios and processes, run right after the column of ours they bound. They take no
 * part in the peers' table; a second table puts each of our figures beside its floors, with ours ÷ floor.
 *
 * Needs `npm run build` (ours is read from libs/*\/dist) and `redis-server` on the PATH for BullMQ. DATABASE_URL as
 * for `npm run bench` (else an embedded PostgreSQL, fsync and synchronous commit on). BENCH_PEERS=ours,bullmq picks
 * peers (ours-redis, ours on Redis, only when named; measure its idle without BullMQ); `floor` names the floors of the
 * named columns of ours (every floor when none is named), and they run unasked beside ours / ours-redis unless
 * BENCH_FLOOR=off. BENCH_ONLY=pickup,bulk,drain,serial,idle picks scenarios (floors have pickup and serial only);
 * BENCH_RUNS (default 3) repetitions.
 */
import { cpus, loadavg } from 'node:os';
import IORedis from 'ioredis';
import { startPostgres } from '../embedded-pg.mjs';
import { percentile, pg, withDatabase } from '../lib.mjs';
import { idleCosts, pgCount } from './idle.mjs';
import { startRedis } from './redis.mjs';
import {
  bulkEnqueue,
  drain,
  BURST_P99_AHEAD,
  DRAIN_JOBS,
  pickupScenarios,
  SERIAL_JOBS,
  WARM_CALLS,
  serialEnqueue,
} from './scenarios.mjs';
import { printFloors } from './floor-table.mjs';
import { printTable } from './table.mjs';

const PEERS = ['ours', 'graphile-worker', 'graphile-worker-016', 'bullmq', 'pg-boss', 'ours-redis'];
/** Each floor pseudo-peer (`floor-<store>.mjs`) and the column of ours it bounds. */
const FLOORS = { 'floor-pg': 'ours', 'floor-pg-wake': 'ours', 'floor-redis': 'ours-redis' };
const ALL = [...PEERS, ...Object.keys(FLOORS)];
// ours on Redis only when named: its idle count would share the one Redis server's INFO with BullMQ's
const DEFAULT_PEERS = PEERS.filter((peer) => peer !== 'ours-redis');
const peers = selectPeers(process.env.BENCH_PEERS, process.env.BENCH_FLOOR !== 'off');
const only = new Set((process.env.BENCH_ONLY ?? 'pickup,bulk,drain,serial,idle').split(','));
const runs = Number(process.env.BENCH_RUNS ?? 3);

/**
 * The peers to run, in rotation order. `floor` names every floor whose column of ours runs (both when neither does);
 * a floor also runs, unasked, beside its column of ours unless `BENCH_FLOOR=off`. A floor runs right after its
 * column of ours, so the two are measured as close together as the rotation allows.
 */
function selectPeers(named, autoFloors) {
  const asked = (named ?? DEFAULT_PEERS.join(',')).split(',').filter(Boolean);
  for (const peer of asked)
    if (peer !== 'floor' && !ALL.includes(peer))
      throw new Error(`BENCH_PEERS: unknown peer ${peer} (one of ${ALL}, floor)`);
  const oursAsked = Object.values(FLOORS).filter((ours) => asked.includes(ours));
  const floorWanted = (floor) =>
    asked.includes(floor) ||
    (asked.includes('floor') && (oursAsked.length === 0 || oursAsked.includes(FLOORS[floor]))) ||
    (autoFloors && asked.includes(FLOORS[floor]));
  const chosen = [];
  for (const peer of asked.filter((p) => p !== 'floor' && !(p in FLOORS))) {
    chosen.push(peer);
    for (const floor of Object.keys(FLOORS))
      if (FLOORS[floor] === peer && floorWanted(floor)) chosen.push(floor);
  }
  for (const floor of Object.keys(FLOORS))
    if (!chosen.includes(floor) && floorWanted(floor)) chosen.push(floor);
  return chosen;
}

const adapters = Object.fromEntries(
  await Promise.all(peers.map(async (peer) => [peer, await import(`./${peer}.mjs`)])),
);
const wall = performance.now();
const server = await startPostgres({ log: (line) => console.log(line) });
const redisServer = peers.some((p) => adapters[p].store === 'redis') ? await startRedis() : null;
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await admin.query('create extension if not exists pg_stat_statements');
const redis = redisServer ? new IORedis(redisServer.url) : null;

/**
 * Dropping a peer's database `with (force)` ends the sessions still open on it: a pool a peer library keeps
 * internally (and did not end on close) then emits 57P01 with no listener. That is the bench tearing down, not a
 * failure of the run: it is logged and the run goes on. Any other uncaught error ends the run.
 */
let dropping = 0;
process.on('uncaughtException', (error) => {
  if (dropping > 0 && error?.code === '57P01') {
    console.log(`  (a peer's session ended by the database drop: ${error.message})`);
    return;
  }
  console.error(error);
  process.exit(1);
});

let made = 0;
/** A fresh store for `peer`: a new database, or the Redis server flushed. */
async function freshStore(peer) {
  if (adapters[peer].store === 'redis') {
    await redis.flushall();
    return { target: { redisUrl: redisServer.url }, drop: async () => {} };
  }
  const database = `peers_${peer.replace(/\W/g, '_')}_${made++}`;
  await admin.query(`create database ${database}`);
  const url = withDatabase(server.url, database);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    database,
    target: { url },
    sql: async (text, values) => (await client.query(text, values)).rows,
    async drop() {
      await client.end();
      dropping++;
      try {
        await admin.query(`drop database if exists ${database} with (force)`);
        // an ended session's error event arrives on a later turn
        await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        dropping--;
      }
    },
  };
}

/** results[peer][figure] = one value per run */
const results = Object.fromEntries(peers.map((peer) => [peer, {}]));
const record = (peer, figure, value) => (results[peer][figure] ??= []).push(value);

/**
 * Statements run in `database` so far, and the server's WAL insert position in bytes (server-wide: read around a
 * phase where only one peer's producer writes, the difference is that producer's WAL).
 */
async function pgCounts(database) {
  const statements = await pgCount(admin, database);
  const { rows } = await admin.query(
    `select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::float8 as n`,
  );
  return { statements, walBytes: rows[0].n };
}

/** The pickup scenarios for `peer`: records their figures and answers the run line's part. */
async function runPickup(peer, adapter, context) {
  // every peer's latencies on a settled server: the previous peer's writes (its drain, a dropped database) flushed by a
  // checkpoint now rather than by one that lands in this peer's timed window, then a second for the disk to quiet
  await admin.query('checkpoint');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const pickup = await pickupScenarios(peer, context, { bodies: adapter.bodies !== false });
  for (const p of [50, 99, 100]) record(peer, `steady p${p}`, percentile(pickup.steady, p));
  record(peer, 'rate500 p99', percentile(pickup.rate500, 99));
  record(peer, 'burst p99', percentile(pickup.burst, 99));
  for (const scenario of ['steady', 'rate500'])
    for (const p of [50, 99])
      record(peer, `ack ${scenario} p${p}`, percentile(pickup.acked[scenario], p));
  record(peer, 'ack burst p99', percentile(pickup.acked.burst, 99));
  const steady = `20/s p50 ${percentile(pickup.steady, 50).toFixed(1)} p99 ${percentile(pickup.steady, 99).toFixed(1)} ms`;
  if (!(peer in FLOORS)) return `pickup ${steady}`;
  const what = adapter.bodies === false ? 'commit' : 'pickup';
  return `${what} ${steady}, 500/s p99 ${percentile(pickup.rate500, 99).toFixed(1)} ms`;
}

/** One repetition of every selected scenario for `peer`, on a store of its own. */
async function runPeer(peer) {
  const adapter = adapters[peer];
  const selected = (scenario) =>
    only.has(scenario) && (adapter.scenarios ?? [scenario]).includes(scenario);
  if (peer in FLOORS && !adapter.scenarios.some(selected)) return;
  const store = await freshStore(peer);
  try {
    const context = await adapter.prepare(store.target);
    const parts = [];
    if (selected('pickup')) parts.push(await runPickup(peer, adapter, context));
    const producer = await adapter.producer(context);
    try {
      if (selected('bulk') || selected('drain')) {
        const bulk = await bulkEnqueue(producer, 'drain', DRAIN_JOBS / 1_000);
        record(peer, 'bulk', bulk);
        parts.push(`bulk ${Math.round(bulk)}/s`);
      }
      if (selected('drain')) {
        // every PostgreSQL peer drains a table its planner has statistics for (as drain.mjs does for ours)
        await store.sql?.('vacuum analyze');
        const drained = await drain(peer, adapter, context, 'drain', DRAIN_JOBS, store.sql);
        record(peer, 'drain', drained.perSecond);
        // a burst's p99 job is its 990th: at concurrency 10 it cannot start before 980 of those ahead of it ran, at
        // the rate this peer's worker drains (the enqueues' own commits not counted)
        record(peer, 'burst drain p99', (BURST_P99_AHEAD * 1_000) / drained.perSecond);
        record(peer, 'drain rss', drained.memory.rss / 1_048_576);
        parts.push(`drain ${Math.round(drained.perSecond)}/s`);
      }
      if (selected('serial')) {
        const before = store.database && (await pgCounts(store.database));
        const serial = await serialEnqueue(producer, 'serial', SERIAL_JOBS);
        record(peer, 'serial', serial);
        parts.push(`serial ${Math.round(serial)}/s`);
        if (store.database) {
          const after = await pgCounts(store.database);
          const calls = SERIAL_JOBS + WARM_CALLS;
          record(peer, 'serial statements', (after.statements - before.statements) / calls);
          record(peer, 'serial wal', (after.walBytes - before.walBytes) / calls);
        }
        if (producer.roundTrip) {
          const roundTrip = await producer.roundTrip();
          record(peer, 'round trip', roundTrip);
          parts.push(`SELECT 1 round trip ${Math.round(roundTrip)} µs`);
        }
      }
    } finally {
      await producer.close();
    }
    console.log(`  ${adapter.label}: ${parts.join(', ')}`);
  } finally {
    await store.drop();
  }
}

/** Every peer idle at once (floors have no idle worker): records each one's statements or commands a minute. */
async function runIdle(idlePeers) {
  console.log(
    `idle: every peer at once, 15 s to back off, then ${runs} windows of a whole minute (a once-a-minute beat counts)`,
  );
  const stores = [];
  for (const peer of idlePeers) stores.push(await freshStore(peer)); // one admin session: one at a time
  try {
    const contexts = await Promise.all(
      idlePeers.map((peer, i) => adapters[peer].prepare(stores[i].target)),
    );
    const perMinute = await idleCosts(
      idlePeers.map((peer, i) => ({
        peer,
        adapter: adapters[peer],
        context: contexts[i],
        database: stores[i].database,
      })),
      { admin, redis, settleMs: 15_000, windowMs: 60_000, windows: runs },
    );
    idlePeers.forEach((peer, i) => perMinute[i].forEach((n) => record(peer, 'idle', n)));
  } finally {
    for (const store of stores) await store.drop();
  }
}

try {
  const { rows } = await admin.query(`select version() as v`);
  console.log(
    `${rows[0].v.split(',')[0]}; ${redisServer ? `redis-server ${redisServer.version}; ` : ''}` +
      `${cpus().length} CPUs, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' / ')} at start; Node ${process.version}; ${runs} interleaved runs`,
  );
  for (let run = 1; run <= runs; run++) {
    console.log(`run ${run} of ${runs} (load average ${loadavg()[0].toFixed(2)})`);
    for (const peer of peers) await runPeer(peer);
  }
  const column = (peer) => ({ label: adapters[peer].label, figures: results[peer] });
  const realPeers = peers.filter((peer) => !(peer in FLOORS));
  if (only.has('idle') && realPeers.length > 0) await runIdle(realPeers);
  if (realPeers.length > 0) printTable(realPeers.map(column));
  printFloors(
    [...new Set(Object.values(FLOORS))]
      .filter((ours) => peers.some((floor) => FLOORS[floor] === ours))
      .map((ours) => ({
        ours: peers.includes(ours) ? column(ours) : { label: ours, figures: {} },
        floors: peers
          .filter((floor) => FLOORS[floor] === ours)
          .map((floor) => ({ ...column(floor), rows: adapters[floor].rows })),
      })),
  );
  console.log(
    `\nload average ${loadavg()[0].toFixed(2)} at the end; ${((performance.now() - wall) / 60_000).toFixed(1)} min`,
  );
} finally {
  redis?.disconnect();
  await admin.end();
  await redisServer?.stop();
  await server.stop();
}

// Everything this process opened is closed above, yet an idle-only run with pg-boss (`BENCH_ONLY=idle
// BENCH_PEERS=pg-boss`) stayed alive over ten minutes after its table on one ref'd Timeout that none of our code
// armed (each other peer alone exits): end the process once the figures are printed.
process.exit(0);
