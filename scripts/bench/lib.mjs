/**
 * What every benchmark section shares: the built packages, a fresh database per section, requests, and the numbers.
 * The packages are read from their `dist/` (built by `npm run build`), the way an app would consume them.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { enqueueRequest } from './requests.mjs';

const require = createRequire(import.meta.url);
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

for (const lib of ['jobs', 'jobs-pg']) {
  if (!existsSync(join(ROOT, 'libs', lib, 'dist', 'index.js'))) {
    console.error(`libs/${lib}/dist is missing: run \`npm run build\` first.`);
    process.exit(1);
  }
}

/** `@ultimat3/jobs` and `@ultimat3/jobs-pg` as built, and `pg`. */
export const jobs = require(join(ROOT, 'libs', 'jobs', 'dist', 'index.js'));
export const jobsPg = require(join(ROOT, 'libs', 'jobs-pg', 'dist', 'index.js'));
/**
 * How long a pooled connection above the kept ones may sit idle before its pool closes it: the library's own
 * (`POOL_IDLE_TIMEOUT_MS`, what `postgresBackend({ url })` uses), or `BENCH_POOL_IDLE_MS` — for the pools a bench
 * builds itself to watch its statements, so they close connections as an app's do.
 */
export const poolIdleMs = Number(
  process.env.BENCH_POOL_IDLE_MS ??
    require(join(ROOT, 'libs', 'jobs-pg', 'dist', 'backend', 'pool-options.js'))
      .POOL_IDLE_TIMEOUT_MS,
);
export const pg = require('pg');

/** `url` pointing at database `name` of the same server. */
export function withDatabase(url, name) {
  const next = new URL(url);
  next.pathname = `/${name}`;
  return next.toString();
}

/**
 * The server's WAL flushes so far, `{ fsyncs, ms }` (their time needs `track_wal_io_timing`): from `pg_stat_io` on
 * PostgreSQL 18+, which moved them there, from `pg_stat_wal` before (14–17). `client` is any connection to the server.
 */
export async function walFlushes(client) {
  const { rows } = await client.query(
    `select current_setting('server_version_num')::int as version`,
  );
  const sql =
    rows[0].version >= 180000
      ? `select coalesce(sum(fsyncs), 0)::float8 as fsyncs, coalesce(sum(fsync_time), 0)::float8 as ms
         from pg_stat_io where object = 'wal'`
      : `select wal_sync::float8 as fsyncs, wal_sync_time::float8 as ms from pg_stat_wal`;
  return (await client.query(sql)).rows[0];
}

let databases = 0;

/** A pool of `poolSize` connections to `url` (its idle errors ignored) and our executor over it. */
export function poolAt(url, { poolSize = 20 } = {}) {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('error', () => {});
  return { pool, executor: jobsPg.pgPoolExecutor(pool) };
}

/** A fresh, migrated database with a pool over it; `drop()` ends the pool and removes it. */
export async function freshDatabase(serverUrl, { poolSize = 20 } = {}) {
  const name = `jobs_bench_${process.pid}_${databases++}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = withDatabase(serverUrl, name);
  const { pool, executor } = poolAt(url, { poolSize });
  await jobsPg.migrate(executor);
  return {
    name,
    url,
    pool,
    executor,
    async drop() {
      await pool.end();
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

let seq = 0;

/** One enqueue request due now (or at `runAt`) on `queue`, with a unique key. */
export function request(queue, name, input = { n: seq }, runAt = Date.now()) {
  return enqueueRequest(jobs.uuidv7, { queue, name, input, idempotencyKey: `k:${seq++}`, runAt });
}

/** Enqueues `total` due jobs named `name` on `queue` through `driver`, in 1,000-row statements. */
export async function fillQueue(driver, queue, name, total) {
  for (let i = 0; i < total; i += 1_000) {
    const size = Math.min(1_000, total - i);
    await driver.enqueueMany(Array.from({ length: size }, () => request(queue, name)));
  }
}

/** Milliseconds since the epoch with sub-millisecond resolution: comparable across processes on one machine. */
export const preciseNow = () => performance.timeOrigin + performance.now();

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The `p`-th percentile (0–100) of `values`, nearest rank. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const median = (values) => percentile(values, 50);

/** `1234.5` → `1,235`. */
export const whole = (n) => Math.round(n).toLocaleString('en-US');

/** One result line: what, the figure with its unit, and a note. */
export function report(what, figure, note = '') {
  console.log(`  ${what.padEnd(58)} ${figure.padStart(16)}${note ? `   ${note}` : ''}`);
}

/** Runs `fn` `runs` times and answers every result (the caller prints the median). */
export async function repeat(runs, fn) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await fn(i));
  return results;
}

/** A registry holding `handles`. */
export function registryOf(...handles) {
  const registry = new jobs.JobRegistry();
  for (const handle of handles) registry.register(handle);
  return registry;
}

/** A no-op job on `queue`. */
export function noopJob(name, queue, run = () => undefined) {
  return jobs.job({
    name,
    queue,
    input: jobs.t.object({ n: jobs.t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run,
  });
}
