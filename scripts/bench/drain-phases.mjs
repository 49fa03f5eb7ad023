#!/usr/bin/env node
/**
 * Where in a drain a fresh worker process spends its time: `bench:peers`' drain row (50,000 no-op jobs enqueued in
 * batches of 1,000, `vacuum analyze`, then a worker process started for the drain; `peers/scenarios.mjs` `drain()`,
 * the same code path) for each peer, interleaved, with the rate of each phase read from when the worker started every
 * 1,000th body: the first 5,000 jobs (a fresh process: connections opened, statements planned, V8 compiling the
 * path), then 5,000–15,000, then the rest. The row's own figure (first body to nothing outstanding) is printed beside.
 *
 * Needs `npm run build`. BENCH_PEERS (default `ours,graphile-worker`: PostgreSQL peers of `peers/`), BENCH_RUNS
 * (default 5). DATABASE_URL as for `npm run bench`, else an embedded PostgreSQL.
 */
import { loadavg } from 'node:os';
import { startPostgres } from './embedded-pg.mjs';
import { median, pg, withDatabase } from './lib.mjs';
import { bulkEnqueue, drain, DRAIN_JOBS } from './peers/scenarios.mjs';

const peers = (process.env.BENCH_PEERS ?? 'ours,graphile-worker').split(',').filter(Boolean);
const runs = Number(process.env.BENCH_RUNS ?? 5);
const adapters = Object.fromEntries(
  await Promise.all(peers.map(async (peer) => [peer, await import(`./peers/${peer}.mjs`)])),
);
/** The phases, as [from, to) in bodies started: each one's rate is (to − from) over the time between those marks. */
const PHASES = [
  ['first 5k', 0, 5_000],
  ['5k-15k', 5_000, 15_000],
  ['15k-50k', 15_000, DRAIN_JOBS],
];

console.log(`drain phases, load average ${loadavg()[0].toFixed(2)} at the start`);
const server = await startPostgres({ log: (line) => console.log(line) });
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();

/** One drain of `peer` on a fresh database: the row's rate and each phase's. */
async function drainOnce(peer, n) {
  const adapter = adapters[peer];
  const database = `phases_${peer.replace(/\W/g, '_')}_${n}`;
  await admin.query(`create database ${database}`);
  const url = withDatabase(server.url, database);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const sql = async (text, values) => (await client.query(text, values)).rows;
  try {
    const context = await adapter.prepare({ url });
    const producer = await adapter.producer(context);
    await bulkEnqueue(producer, 'drain', DRAIN_JOBS / 1_000);
    await producer.close();
    await sql('vacuum analyze');
    const drained = await drain(peer, adapter, context, 'drain', DRAIN_JOBS, sql);
    // when the n-th body started: the first, then every 1,000th
    const at = (count) => (count === 0 ? drained.first : drained.marks[count / 1_000 - 1]);
    const phases = PHASES.map(([, from, to]) => ((to - from) * 1_000) / (at(to) - at(from)));
    return { row: drained.perSecond, phases, firstPhaseMs: at(5_000) - at(0) };
  } finally {
    await client.end();
    await admin.query(`drop database if exists ${database} with (force)`);
  }
}

const results = Object.fromEntries(peers.map((peer) => [peer, []]));
const line = (r) =>
  `row ${Math.round(r.row)}/s  ` +
  PHASES.map(([name], i) => `${name} ${Math.round(r.phases[i])}/s`).join('  ') +
  `  (first 5k in ${r.firstPhaseMs.toFixed(0)} ms)`;
let n = 0;
for (let run = 0; run < runs; run++) {
  for (const peer of peers) {
    const r = await drainOnce(peer, n++);
    results[peer].push(r);
    console.log(`run ${run} ${peer.padEnd(20)} ${line(r)}  load ${loadavg()[0].toFixed(2)}`);
  }
}
console.log(`\nmedians of ${runs} (load average ${loadavg()[0].toFixed(2)} at the end)`);
for (const peer of peers) {
  const rs = results[peer];
  console.log(
    `${peer.padEnd(20)} ${line({
      row: median(rs.map((r) => r.row)),
      phases: PHASES.map((_, i) => median(rs.map((r) => r.phases[i]))),
      firstPhaseMs: median(rs.map((r) => r.firstPhaseMs)),
    })}`,
  );
}
await admin.end();
await server.stop();
