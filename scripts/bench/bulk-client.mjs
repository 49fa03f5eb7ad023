#!/usr/bin/env node
/**
 * What a bulk batch costs this process, the database left out: 1,000 rows through `handle.enqueueMany()` and the
 * PostgreSQL driver up to the wire — the inputs parsed, the rows built and checked, the statement's parameters built
 * and serialised by `pg-protocol` as `pg` sends them — beside graphile-worker's `add_jobs` batch (its specs as one
 * JSON text, serialised the same way), the two costs `scripts/bench/bulk-batches.mjs` reads as "process" with a
 * socket and a server in between:
 *
 *   npm run build && node scripts/bench/bulk-client.mjs
 *
 * The executor under our driver answers every statement as if PostgreSQL had inserted every row, so the driver takes
 * its real path (the optimistic insert). Each line: wall and CPU a batch (wall: this thread, with no I/O on the path;
 * CPU: the process's, all threads, the collector's helpers included), the bytes of the Bind message a batch, and the
 * collections. BENCH_ROUNDS rounds (default 5) of BENCH_BATCHES batches each (default 200), after BENCH_WARM untimed
 * ones a peer (default 400); the rows are built before the clock starts. `BENCH_WARM=0 BENCH_BATCHES=50
 * BENCH_ROUNDS=1` times the path as `bench:peers`' bulk row meets it, cold: the job declared (as a producer declares its
 * jobs when it opens), no batch sent yet.
 */
import { createRequire } from 'node:module';
import { PerformanceObserver } from 'node:perf_hooks';
import { jobs, jobsPg } from './lib.mjs';
import { handleOf } from './peers/ours-common.mjs';

const require = createRequire(import.meta.url);
const { serialize } = require('pg-protocol');
const { prepareValue } = require('pg/lib/utils');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 200);
const WARM = Number(process.env.BENCH_WARM ?? 400);
let bindBytes = 0;

/** What `pg` writes for a statement's parameters: each value prepared, then the Bind message. */
const send = (values) => {
  bindBytes += serialize.bind({ values: values.map((value) => prepareValue(value)) }).length;
};

const executor = {
  shared: true,
  async query(_text, values) {
    send(values);
    return { rows: [{ inserted: 1_000 }], rowCount: 1 };
  },
};
jobs.setJobsFacade(jobs.directJobsFacade({ driver: jobsPg.postgresJobDriver({ executor }) }));
handleOf('drain'); // declared before any batch, as an app declares its jobs as it starts (it loads the tracing peer)

const peers = {
  ours: (rows) => handleOf('drain').enqueueMany(rows),
  'graphile-worker': async (rows) =>
    send([JSON.stringify(rows.map((payload) => ({ identifier: 'drain', payload })))]),
};

let next = 10_000_000;
const batchesOf = (count) =>
  Array.from({ length: count }, () => Array.from({ length: 1_000 }, () => ({ n: next++, t: 0 })));

/** Untimed batches through `peer`, built one at a time (a heap swollen by rows built ahead would tax what follows). */
async function warm(peer, count) {
  for (let i = 0; i < count; i++) await peers[peer](batchesOf(1)[0]);
}

/**
 * Runs `count` batches through `peer`; answers wall and CPU µs, Bind bytes and collections a batch. With no I/O on
 * the path, wall is this thread's time and its pauses; CPU adds the collector's helper threads.
 */
async function time(peer, count) {
  const batches = batchesOf(count);
  const gcs = [];
  const observer = new PerformanceObserver((list) => gcs.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  bindBytes = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const batch of batches) await peers[peer](batch);
  const wall = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  await new Promise((resolve) => setTimeout(resolve, 10)); // the last GC entries arrive on a later turn
  observer.disconnect();
  return {
    wall: (wall * 1_000) / count,
    cpu: (user + system) / count,
    bytes: bindBytes / count,
    gcs: gcs.length / count,
  };
}

for (const peer of Object.keys(peers)) await warm(peer, WARM);
console.log(`${BATCHES} batches of 1,000 a line, after ${WARM} untimed`);
for (let round = 1; round <= ROUNDS; round++) {
  for (const peer of Object.keys(peers)) {
    const { wall, cpu, bytes, gcs } = await time(peer, BATCHES);
    console.log(
      `  round ${round}  ${peer.padEnd(16)} wall ${String(Math.round(wall)).padStart(5)} µs, CPU ` +
        `${String(Math.round(cpu)).padStart(5)} µs a batch` +
        `  Bind ${(bytes / 1_000).toFixed(1)} kB  ${gcs.toFixed(2)} GCs a batch`,
    );
  }
}
