#!/usr/bin/env node
/**
 * Where a pickup's time goes, across processes: the `bench:peers` pickup scenarios (200 jobs 50 ms apart from one
 * producer; 2,000 at 500/s from four; 1,000 `enqueue()` calls at once) with every job traced leg by leg on one host
 * clock — enqueue() called, its INSERT sent, its commit answered, the next wake heard by the worker, the claim that
 * took it sent and answered, its body started — and the floors under them measured in the same run at the same
 * rates from the same producer processes: a bare committed single-row insert (synchronous commit on, and off: the
 * difference is the commit's WAL flush), the same insert notifying on every third call — in its own commit
 * (`insert-notify`: what PostgreSQL's notify lock, held across a notifying commit's flush, costs the commits), or
 * after it in a transaction of its own that does not wait for its flush (`insert-then-notify`) — and a bare
 * `select 1`. PostgreSQL's side per scenario from `pg_stat_statements` (the enqueue and claim statements) and
 * `pg_stat_io` or `pg_stat_wal` (WAL flushes: `walFlushes` in lib.mjs).
 *
 * `node scripts/bench/pickup-trace.mjs` (needs `npm run build`; DATABASE_URL or an embedded PostgreSQL, fsync and
 * synchronous commit on). BENCH_TRACE_ROUNDS (default 2) repetitions of every scenario, each followed by its floors;
 * BENCH_TRACE_ANALYZE=0 leaves the table's statistics to autovacuum (default: ANALYZE x_jobs before each scenario, the
 * state a queue's statistics are in when a burst comes: taken while nothing waited); BENCH_TRACE_ONLY (default
 * steady,rate500,burst) picks scenarios; BENCH_TRACE_BURST (default 1,000) sizes the burst; BENCH_TRACE_STATEMENTS=1
 * prints each statement's calls, mean execution, buffers and WAL records per call after each scenario.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres } from './embedded-pg.mjs';
import { freshDatabase, percentile, pg, preciseNow, sleep, walFlushes } from './lib.mjs';
import { tailShares, traceLegs } from './pickup-trace-legs.mjs';
import { spawnChild as spawnChildAt } from './fork-child.mjs';
import { serverOf } from './cpu-use.mjs';
import { cpuNow, fmt, printBurstFloor } from './pickup-trace-burst.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const rounds = Number(process.env.BENCH_TRACE_ROUNDS ?? 2);
/** ANALYZE x_jobs before each scenario, as autovacuum does a queue between bursts (its statistics see nothing wait). */
const analyze = process.env.BENCH_TRACE_ANALYZE !== '0';
/** Which scenarios run (steady, rate500, burst) and the burst's size. */
const only = new Set((process.env.BENCH_TRACE_ONLY ?? 'steady,rate500,burst').split(','));
const burstSize = Number(process.env.BENCH_TRACE_BURST ?? 1_000);
/** BENCH_TRACE_STATEMENTS=1 prints each statement's counters after each scenario. */
const perStatement = process.env.BENCH_TRACE_STATEMENTS === '1';

const spawnChild = (script, args) => spawnChildAt(join(HERE, script), args);

let base = 0;
/** Each of `producers` runs `count` calls of `mode` `intervalMs` apart, staggered evenly; answers every call. */
async function arrive(producers, mode, count, intervalMs) {
  const startAt = preciseNow() + 200;
  const answers = await Promise.all(
    producers.map((producer, k) => {
      base += 1_000_000;
      return producer.ask({
        type: 'run',
        mode,
        count,
        intervalMs,
        startAt: startAt + (k * intervalMs) / producers.length,
        base,
      });
    }),
  );
  return {
    jobs: answers.flatMap((a) => a.jobs),
    lateMs: Math.max(...answers.map((a) => a.lateMs)),
  };
}

/**
 * Waits until the worker saw `expected` bodies (or 15 s passed), runs `then` (a reading taken before the worker packs
 * its answer), and answers what it collected.
 */
async function collect(worker, expected, then = async () => undefined) {
  const deadline = preciseNow() + 15_000 + expected * 5;
  while (preciseNow() < deadline && (await worker.ask({ type: 'peek' })).count < expected)
    await sleep(20);
  await then();
  return worker.ask({ type: 'collect' });
}

/** PostgreSQL's counters the report reads: per statement kind and the WAL flushes. */
async function serverCounters(ctx) {
  const { admin, db } = ctx;
  const database = db.name;
  // a claim is told by its CTE's name, SQL_CLAIM_WOKEN by its locked scan under the update: pg_stat_statements may
  // keep a text whose constants ('claimed' among them) are $n
  const { rows } = await admin.query(
    `select case when query like '%claimed as (%' or query like '%update x_jobs j set%skip locked%' then 'claim'
                 when query ilike '%insert into x_jobs%' then 'enqueue' end as kind,
            sum(calls)::float8 as calls, sum(total_exec_time)::float8 as ms, sum(rows)::float8 as rows,
            sum(shared_blks_hit + shared_blks_read)::float8 as blocks, sum(wal_records)::float8 as wal,
            max(max_exec_time)::float8 as max_ms
     from pg_stat_statements s join pg_database d on d.oid = s.dbid
     where d.datname = $1 group by 1`,
    [database],
  );
  const wal = await walFlushes(admin);
  const indexes = await ctx.db.pool.query(
    `select indexrelname as name, idx_scan::float8 as scans, idx_tup_read::float8 as read
     from pg_stat_user_indexes where relname = 'x_jobs'`,
  );
  return {
    statements: Object.fromEntries(rows.map((r) => [r.kind, r])),
    wal,
    indexes: Object.fromEntries(indexes.rows.map((r) => [r.name, r])),
  };
}

/** Each statement's own counters (BENCH_TRACE_STATEMENTS=1): calls, mean execution, buffers and WAL records a call. */
async function printStatements(ctx) {
  const { rows } = await ctx.admin.query(
    `select left(regexp_replace(query, '\\s+', ' ', 'g'), 70) as text, calls::float8 as calls,
            (total_exec_time / calls)::float8 as ms, ((shared_blks_hit + shared_blks_read)::float8 / calls) as blocks,
            (wal_records::float8 / calls) as wal
     from pg_stat_statements s join pg_database d on d.oid = s.dbid
     where d.datname = $1 order by total_exec_time desc limit 8`,
    [ctx.db.name],
  );
  for (const r of rows)
    console.log(
      `      ${String(r.calls).padStart(5)} × ${fmt(r.ms)} ms, ${fmt(r.blocks)} buffers, ${fmt(r.wal)} WAL: ${r.text}`,
    );
}

/** The legs' short names, in `traceLegs` order. */
const SHORT = ['queued', 'insert+commit', 'to wake', 'to claim', 'claim', 'to body'];
const pq = (xs) => `p50 ${fmt(percentile(xs, 50))}  p99 ${fmt(percentile(xs, 99))}`;

function printServer(before, after, jobs) {
  for (const kind of ['enqueue', 'claim']) {
    const s = after.statements[kind];
    if (!s) continue;
    console.log(
      `    server ${kind}: ${s.calls} statements (${fmt(s.calls / jobs)} a job), ` +
        `${fmt(s.ms / s.calls)} ms exec each (max ${fmt(s.max_ms)}), ` +
        `${fmt(s.rows / s.calls)} rows, ${fmt(s.blocks / s.calls)} buffers, ${fmt(s.wal / s.calls)} WAL records`,
    );
  }
  const fsyncs = after.wal.fsyncs - before.wal.fsyncs;
  const fsyncMs = after.wal.ms - before.wal.ms;
  console.log(`    server WAL: ${fsyncs} flushes, ${fmt(fsyncMs / Math.max(1, fsyncs))} ms each`);
  const read = Object.entries(after.indexes)
    .map(([name, a]) => [
      name,
      a.scans - (before.indexes[name]?.scans ?? 0),
      a.read - (before.indexes[name]?.read ?? 0),
    ])
    .filter(([, scans]) => scans > 0)
    .map(([name, scans, tuples]) => `${name.replace(/^x_jobs_/, '')} ${scans}/${tuples}`);
  console.log(`    x_jobs index scans/entries read: ${read.join(', ')}`);
}

/** One scenario: the traced enqueues, then (unless a burst) its floors at the same schedule. */
async function scenario(ctx, { label, producers, count, intervalMs }) {
  const { admin, db, worker } = ctx;
  if (analyze) await db.pool.query('analyze x_jobs');
  await admin.query('select pg_stat_statements_reset()');
  const before = await serverCounters(ctx);
  const load = loadavg()[0];
  const cpuBefore = intervalMs === 0 ? await cpuNow(ctx, producers[0]) : undefined;
  const sent = await arrive(producers, 'enqueue', count, intervalMs);
  let cpuAfter;
  const seen = await collect(worker, sent.jobs.length, async () => {
    if (cpuBefore !== undefined) cpuAfter = await cpuNow(ctx, producers[0]);
  });
  await sleep(1_100); // backends flush their index counters at most once a second
  const after = await serverCounters(ctx);
  const legs = traceLegs(sent.jobs, seen);
  console.log(
    `\n  ${label} (load ${load.toFixed(2)}; ${legs.total.length} of ${sent.jobs.length} traced` +
      `${sent.lateMs > 5 ? `; producers up to ${sent.lateMs.toFixed(0)} ms late` : ''})`,
  );
  for (const [leg, xs] of Object.entries(legs.legs)) console.log(`    ${leg.padEnd(34)} ${pq(xs)}`);
  console.log(
    `    ${'call → body (total)'.padEnd(34)} ${pq(legs.total)}  max ${fmt(Math.max(...legs.total))}`,
  );
  const shares = tailShares(legs, 95);
  console.log(
    `    slowest 5% (≥ ${fmt(shares.threshold)} ms), mean ms per leg: ` +
      Object.values(shares.means)
        .map((ms, i) => `${SHORT[i]} ${fmt(ms)}`)
        .join(', '),
  );
  const handedCount = legs.handed['call → body (handed)'].length;
  if (handedCount > 0) {
    console.log(`    handed to the worker by their enqueue: ${handedCount} jobs`);
    for (const [leg, xs] of Object.entries(legs.handed))
      console.log(`      ${leg.padEnd(32)} ${pq(xs)}`);
  }
  const c = legs.counts;
  console.log(
    `    worker: ${c.wakes} wakes and ${c.sweeps} sweeps alone heard, ${c.claims} claims (${c.fullClaims} SQL_CLAIM), ${fmt(c.rowsPerClaim)} rows ` +
      `a claim that took any (max ${c.maxRows}), ${c.emptyClaims} empty, ${c.busy} sent with other statements on ` +
      `the wire; jobs taken by a claim answering their wake ${c.afterWake}, by another pass ${c.beforeWake}`,
  );
  const d = seen.delay;
  console.log(
    `    worker event-loop delay p50 ${fmt(d.p50)} p99 ${fmt(d.p99)} max ${fmt(d.max)} ms; statements ` +
      Object.entries(seen.kinds)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
  );
  printServer(before, after, sent.jobs.length);
  if (perStatement) await printStatements(ctx);
  if (intervalMs === 0) {
    const used = Object.fromEntries(
      Object.keys(cpuAfter).map((k) => [k, cpuAfter[k] - cpuBefore[k]]),
    );
    return printBurstFloor(sent.jobs, seen.bodies, used);
  }
  await sleep(300);
  for (const mode of ['insert', 'insert-notify', 'insert-then-notify', 'insert-async', 'select']) {
    const floor = await arrive(producers, mode, count, intervalMs);
    const xs = floor.jobs.map((j) => j.back - j.sent);
    console.log(`    floor ${mode.padEnd(28)} ${pq(xs)}   (call → answered)`);
    await sleep(300);
  }
}

const server = await startPostgres({ log: (line) => console.log(line) });
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await admin.query('create extension if not exists pg_stat_statements');
const db = await freshDatabase(server.url, { poolSize: 2 });
await db.pool.query('create table bench_floor (id bigserial primary key, v text)');
const worker = await spawnChild('pickup-trace-worker.mjs', [db.url]);
const producers = await Promise.all(
  [0, 1, 2, 3].map(() => spawnChild('pickup-trace-producer.mjs', [db.url])),
);
try {
  const { rows } = await admin.query('select version() as v');
  console.log(
    `${rows[0].v.split(',')[0]}; wake ${worker.first.live ? 'proven' : 'NOT proven'}; ` +
      `${analyze ? 'x_jobs analysed before each scenario' : 'statistics left to autovacuum'}; load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' / ')} at start`,
  );
  await arrive(producers, 'enqueue', 3, 20); // warm both sides
  await collect(worker, 12);
  const ctx = { admin, db, worker, cpuServer: await serverOf(db.pool) };
  for (let round = 1; round <= rounds; round++) {
    console.log(`\nround ${round} of ${rounds}`);
    const scenarios = {
      steady: {
        label: '20/s, one producer',
        producers: producers.slice(0, 1),
        count: 200,
        intervalMs: 50,
      },
      rate500: { label: '500/s, four producers', producers, count: 500, intervalMs: 8 },
      burst: {
        label: `burst of ${burstSize.toLocaleString('en-US')}`,
        producers: producers.slice(0, 1),
        count: burstSize,
        intervalMs: 0,
      },
    };
    for (const [name, options] of Object.entries(scenarios)) {
      if (!only.has(name)) continue;
      await sleep(500);
      await scenario(ctx, options);
    }
  }
} finally {
  await Promise.all([worker, ...producers].map((child) => child.stop()));
  await db.drop();
  await admin.end();
  await server.stop();
}
