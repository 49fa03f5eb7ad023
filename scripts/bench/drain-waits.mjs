#!/usr/bin/env node
/**
 * Where a PostgreSQL drain's statements spend their time: one worker (concurrency 10, the README defaults) drains
 * `BENCH_DRAIN_JOBS` no-op jobs (50,000) in this process while a second connection samples `pg_stat_activity` every
 * millisecond or so — each active claim's and ack's wait event (none: on a CPU or waiting for one), and for a wait on a
 * lock, the kind of statement holding it. It prints the drain rate, those samples per statement kind, each kind's
 * round trips and rows as the worker saw them, the share of the drain with no claim (no ack, neither) on the wire,
 * and the CPU of this process and of the server's backends.
 *
 *   npm run build && node scripts/bench/drain-waits.mjs
 *
 * `BENCH_RUNS` drains (default 3), each in a fresh database of one embedded server (fsync and synchronous commit on).
 */
import { loadavg } from 'node:os';
import { serverMs, serverOf } from './cpu-use.mjs';
import { startPostgres } from './embedded-pg.mjs';
import {
  fillQueue,
  freshDatabase,
  jobs,
  jobsPg,
  median,
  noopJob,
  pg,
  preciseNow,
  registryOf,
  sleep,
} from './lib.mjs';

const JOBS = Number(process.env.BENCH_DRAIN_JOBS ?? 50_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

/** A statement's kind from its text: the claims answer arm `claimed`, the acks set `state = 'done'`. */
const kindOf = (text) =>
  text.includes("'claimed' as arm") ? 'claim' : text.includes("state = 'done'") ? 'ack' : undefined;

/**
 * The same, as SQL over `pg_stat_activity.query`, which keeps a statement's first 1,024 bytes: the busy claims begin
 * with their `slots` (`SQL_CLAIM`, `SQL_CLAIM_WAITING`) or set `state = 'running'` (`SQL_CLAIM_WOKEN`).
 */
const KIND_SQL = (column) => `case when ${column} like '%state = ''done''%' then 'ack'
  when ${column} like '%slots as (%' or ${column} like '%state = ''running''%' then 'claim' else 'other' end`;
const SAMPLE = `select ${KIND_SQL('a.query')} as kind,
    coalesce(a.wait_event_type || ':' || a.wait_event, 'on CPU') as wait,
    (select string_agg(distinct ${KIND_SQL('b.query')}, ',') from pg_stat_activity b
      where b.pid = any(pg_blocking_pids(a.pid))) as holder
  from pg_stat_activity a where a.datname = $1 and a.state = 'active' and a.pid <> pg_backend_pid()`;

/** `executor` recording when each claim and ack went out and came back, and its rows. */
function timed(executor, statements) {
  const traced = Object.create(executor);
  traced.query = async (text, values) => {
    const kind = kindOf(text);
    const sent = preciseNow();
    const result = await executor.query(text, values);
    if (kind !== undefined) statements.push({ kind, sent, back: preciseNow(), values, result });
    return result;
  };
  return traced;
}

/** The share of [from, to) during which no statement of `kinds` was on the wire, read every 0.25 ms. */
function idleShare(statements, kinds, from, to) {
  const spans = statements.filter((s) => kinds.includes(s.kind));
  let idle = 0;
  let all = 0;
  for (let t = from; t < to; t += 0.25, all++)
    if (!spans.some((s) => s.sent <= t && t < s.back)) idle++;
  return idle / all;
}

/** Bodies run in the current drain. */
let ran = 0;
const registry = registryOf(noopJob('bench.drain', 'drain', () => void ran++));

async function drainOnce(server, admin, cpuServer) {
  const db = await freshDatabase(server.url);
  const { name, pool } = db;
  const statements = [];
  const driver = jobsPg.postgresJobDriver({ executor: timed(db.executor, statements) });
  await fillQueue(driver, 'drain', 'bench.drain', JOBS);
  await pool.query('vacuum analyze x_jobs');
  await pool.query('checkpoint');
  ran = 0;
  const worker = jobs.jobWorker({ driver, registry, concurrency: 10 });
  const samples = new Map();
  const cpu0 = { own: process.cpuUsage(), server: serverMs(cpuServer) };
  const started = preciseNow();
  await worker.start();
  const done = () => ran >= JOBS || preciseNow() - started > 60_000;
  const sampling = (async () => {
    while (!done()) {
      const { rows } = await admin.query(SAMPLE, [name]);
      for (const r of rows) {
        const key = `${r.kind} ${r.wait}${r.holder ? ` (held by: ${r.holder})` : ''}`;
        samples.set(key, (samples.get(key) ?? 0) + 1);
      }
      await sleep(1); // the sampling's own backend takes a share of the two cores too
    }
  })();
  while (!done()) await sleep(2);
  // the last acks: the drain ends when no row of it is left running
  while (
    (await pool.query("select count(*)::int as c from x_jobs where state = 'running'")).rows[0].c >
    0
  )
    await sleep(2);
  const ended = preciseNow();
  await sampling;
  const own = process.cpuUsage(cpu0.own);
  const serverUsed = serverMs(cpuServer) - cpu0.server;
  await worker.stop();
  await db.drop();
  return {
    statements,
    samples,
    started,
    ended,
    ownMs: (own.user + own.system) / 1_000,
    serverMs: serverUsed,
  };
}

function report(run, n) {
  const { statements, samples, started, ended } = run;
  const ms = ended - started;
  console.log(
    `\nrun ${n + 1}: ${Math.round((JOBS * 1_000) / ms).toLocaleString('en-US')} jobs/s; CPU a job: this process ` +
      `${((run.ownMs * 1_000) / JOBS).toFixed(1)} µs, the server ${((run.serverMs * 1_000) / JOBS).toFixed(1)} µs ` +
      `(${((run.ownMs + run.serverMs) / ms).toFixed(2)} cores of the drain's wall time)`,
  );
  for (const kind of ['claim', 'ack']) {
    const mine = statements.filter((s) => s.kind === kind && s.sent >= started);
    const rows = mine.map((s) =>
      kind === 'claim' ? s.result.rows.length : (s.values[4]?.length ?? 1),
    );
    const trips = mine.map((s) => s.back - s.sent);
    console.log(
      `  ${kind}s: ${mine.length}, ${median(rows)} rows at the median (max ${Math.max(...rows)}), round trip p50 ` +
        `${median(trips).toFixed(1)} ms, max ${Math.max(...trips).toFixed(1)}`,
    );
  }
  const from = started + 20;
  console.log(
    `  share of the drain with no claim on the wire ${idleShare(statements, ['claim'], from, ended).toFixed(2)}, ` +
      `no ack ${idleShare(statements, ['ack'], from, ended).toFixed(2)}, ` +
      `neither ${idleShare(statements, ['claim', 'ack'], from, ended).toFixed(2)}`,
  );
  const total = [...samples.values()].reduce((a, b) => a + b, 0);
  for (const [key, count] of [...samples].sort((a, b) => b[1] - a[1]).slice(0, 12))
    console.log(`  ${((100 * count) / total).toFixed(1).padStart(5)} %  ${key}`);
}

const server = await startPostgres({ log: (line) => console.log(line) });
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
const cpuServer = await serverOf(admin);
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} at start; ${JOBS} jobs a drain`,
);
try {
  for (let n = 0; n < RUNS; n++) report(await drainOnce(server, admin, cpuServer), n);
} finally {
  await admin.end();
  await server.stop();
}
