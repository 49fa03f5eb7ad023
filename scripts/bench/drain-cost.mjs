/**
 * What a PostgreSQL drain costs the server per job, checkouts side by side: `BENCH_CHECKOUTS=/a,/b` (default: this
 * checkout) each drained `BENCH_DRAIN_JOBS` no-op jobs (50,000) by one worker at concurrency 10 (README defaults),
 * interleaved `BENCH_RUNS` times (3) on one embedded server. Each checkout is read from its own built `dist/`.
 *
 * Per drained job it prints: jobs/s, the worker's CPU (µs, this process), the backends' CPU (µs, from /proc), each
 * with the share spent in the kernel (system time: for the worker, its sockets and timers), and from
 * the server's own counters — `pg_stat_statements` per statement and summed (calls, rows, shared buffers hit and
 * dirtied, WAL records, bytes and full-page images) and `pg_stat_user_tables` (updates, how many were HOT).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { statOf } from './cpu-use.mjs';
import { startPostgres } from './embedded-pg.mjs';
import { enqueueRequest } from './requests.mjs';
import { ROOT, median, pg, preciseNow, sleep, withDatabase } from './lib.mjs';

const JOBS = Number(process.env.BENCH_DRAIN_JOBS ?? 50_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CHECKOUTS = (process.env.BENCH_CHECKOUTS ?? ROOT).split(',');
/** A checkout named `<dir>+extra` runs `BENCH_EXTRA_SQL` after its migrations: a schema variant measured side by side. */
const EXTRA_SQL = process.env.BENCH_EXTRA_SQL ?? '';

/** A checkout's built `@ultimat3/jobs` and `@ultimat3/jobs-pg`, and a no-op job of its own. */
const loaded = new Map();

function loadCheckout(named) {
  const root = named.replace(/\+(extra|serial)$/, '');
  const seen = loaded.get(root);
  if (seen)
    return {
      ...seen,
      root: named,
      extra: named.endsWith('+extra'),
      serial: named.endsWith('+serial'),
    };
  const require = createRequire(join(root, 'package.json'));
  const jobs = require(join(root, 'libs', 'jobs', 'dist', 'index.js'));
  const jobsPg = require(join(root, 'libs', 'jobs-pg', 'dist', 'index.js'));
  const handle = jobs.job({
    name: 'bench.drain',
    queue: 'drain',
    input: jobs.t.object({ n: jobs.t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run: () => undefined,
  });
  const registry = new jobs.JobRegistry();
  registry.register(handle);
  loaded.set(root, { jobs, jobsPg, registry });
  return {
    root: named,
    extra: named.endsWith('+extra'),
    serial: named.endsWith('+serial'),
    jobs,
    jobsPg,
    registry,
  };
}

/** A V8 CPU profile of this process from now to `stop(file)` (`BENCH_CPUPROF=<file prefix>`): the worker's side. */
async function startProfiler() {
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/** `executor` sending one claim at a time (`<dir>+serial`): a claim sent while one is out waits for it. */
function serialClaims(executor) {
  const serial = Object.create(executor);
  let last = Promise.resolve();
  serial.query = (text, values) => {
    // SQL_CLAIM's CTE, or SQL_CLAIM_WOKEN's one UPDATE (a one-queue drain's claims)
    if (!text.includes('claimed as (') && !text.includes("'claimed' as arm"))
      return executor.query(text, values);
    const run = last.then(() => executor.query(text, values));
    last = run.catch(() => undefined);
    return run;
  };
  return serial;
}

/** CPU time (µs) of every backend connected to `db`, by pid. */
async function backendCpu(admin, db) {
  const { rows } = await admin.query('select pid from pg_stat_activity where datname = $1', [db]);
  const used = new Map();
  for (const { pid } of rows) {
    const stat = statOf(pid); // undefined: gone between the query and the read
    if (stat !== undefined) used.set(pid, { all: stat.ms * 1_000, sys: stat.kernelMs * 1_000 });
  }
  return used;
}

/** `perf record` of the backends serving `db`, once the worker's connections are open (`BENCH_PERF=<file prefix>`). */
async function perfRecord(admin, db, file) {
  await sleep(300);
  const { rows } = await admin.query('select pid from pg_stat_activity where datname = $1', [db]);
  const pids = rows.map((r) => r.pid).join(',');
  return spawn(
    'perf',
    [
      'record',
      '-F',
      '999',
      '--call-graph',
      process.env.BENCH_PERF_CG ?? 'fp',
      '-o',
      file,
      '-p',
      pids,
    ],
    { stdio: 'ignore' },
  );
}

async function drainOnce(serverUrl, admin, co, n) {
  const name = `jobs_cost_${process.pid}_${n}`;
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  // counts each statement's planning (pg_stat_statements' plans): a prepared statement planned on every execution shows
  await admin.query(`alter database ${name} set pg_stat_statements.track_planning = on`);
  const pool = new pg.Pool({ connectionString: withDatabase(serverUrl, name), max: 20 });
  pool.on('error', () => {});
  const executor = co.jobsPg.pgPoolExecutor(pool);
  await co.jobsPg.migrate(executor);
  if (co.extra) await pool.query(EXTRA_SQL);
  const driver = co.jobsPg.postgresJobDriver({
    executor: co.serial ? serialClaims(executor) : executor,
  });
  for (let i = 0; i < JOBS; i += 1_000) {
    const size = Math.min(1_000, JOBS - i);
    await driver.enqueueMany(
      Array.from({ length: size }, (_, k) =>
        enqueueRequest(co.jobs.uuidv7, {
          queue: 'drain',
          name: 'bench.drain',
          input: { n: i + k },
        }),
      ),
    );
  }
  await pool.query('vacuum analyze x_jobs');
  await pool.query('checkpoint');
  const dbid = (await admin.query('select oid from pg_database where datname = $1', [name])).rows[0]
    .oid;
  await admin.query('select pg_stat_statements_reset(0, $1)', [dbid]);
  const tableBefore = (
    await pool.query(
      "select n_tup_upd, n_tup_hot_upd from pg_stat_user_tables where relname = 'x_jobs'",
    )
  ).rows[0];
  const worker = co.jobs.jobWorker({ driver, registry: co.registry, concurrency: 10 });
  const cpuBefore = await backendCpu(admin, name);
  const ownBefore = process.cpuUsage();
  const started = preciseNow();
  const profiler = process.env.BENCH_CPUPROF ? await startProfiler() : null;
  await worker.start();
  const perf = process.env.BENCH_PERF
    ? await perfRecord(admin, name, `${process.env.BENCH_PERF}.${n}`)
    : null;
  while (worker.stats().completed < JOBS) await sleep(2);
  const elapsed = preciseNow() - started;
  if (perf) {
    perf.kill('SIGINT');
    await new Promise((resolve) => perf.on('exit', resolve));
  }
  const own = process.cpuUsage(ownBefore);
  if (profiler) await profiler.stop(`${process.env.BENCH_CPUPROF}.${n}.cpuprofile`);
  const cpuAfter = await backendCpu(admin, name);
  await worker.stop();
  let backendUs = 0;
  let backendSysUs = 0;
  for (const [pid, us] of cpuAfter) {
    backendUs += us.all - (cpuBefore.get(pid)?.all ?? 0);
    backendSysUs += us.sys - (cpuBefore.get(pid)?.sys ?? 0);
  }
  const statements = (
    await admin.query(
      `select left(regexp_replace(query, '\\s+', ' ', 'g'), 60) as q, calls, plans, rows, shared_blks_hit as hit,
         shared_blks_read as read, shared_blks_dirtied as dirtied, wal_records, wal_bytes, wal_fpi,
         total_exec_time + total_plan_time as ms
       from pg_stat_statements where dbid = $1 and calls > 0 order by wal_bytes desc, calls desc limit 8`,
      [dbid],
    )
  ).rows;
  const wal = (
    await admin.query(
      `select sum(wal_records) as wal_records, sum(wal_fpi) as wal_fpi, sum(wal_bytes) as wal_bytes
       from pg_stat_statements where dbid = $1`,
      [dbid],
    )
  ).rows[0];
  await pool.end(); // its backends report their table counts as they exit
  await sleep(300);
  const reader = new pg.Client({ connectionString: withDatabase(serverUrl, name) });
  await reader.connect();
  const table = (
    await reader.query(
      "select n_tup_upd, n_tup_hot_upd from pg_stat_user_tables where relname = 'x_jobs'",
    )
  ).rows[0];
  await reader.end();
  await admin.query(`drop database if exists ${name} with (force)`);
  return {
    perSecond: (JOBS * 1000) / elapsed,
    workerUs: (own.user + own.system) / JOBS,
    workerSysUs: own.system / JOBS,
    backendUs: backendUs / JOBS,
    backendSysUs: backendSysUs / JOBS,
    walRecords: Number(wal.wal_records) / JOBS,
    walFpi: Number(wal.wal_fpi) / JOBS,
    walBytes: Number(wal.wal_bytes) / JOBS,
    updates: (Number(table.n_tup_upd) - Number(tableBefore.n_tup_upd)) / JOBS,
    hot: (Number(table.n_tup_hot_upd) - Number(tableBefore.n_tup_hot_upd)) / JOBS,
    statements,
  };
}

const fmt = (n, d = 1) => n.toFixed(d).padStart(9);

async function main() {
  const server = await startPostgres({ log: (line) => console.log(line) });
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query('create extension if not exists pg_stat_statements');
  const checkouts = CHECKOUTS.map(loadCheckout);
  const results = checkouts.map(() => []);
  console.log(`load average at start: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
  let n = 0;
  for (let run = 0; run < RUNS; run++) {
    for (const [i, co] of checkouts.entries()) {
      const r = await drainOnce(server.url, admin, co, n++);
      results[i].push(r);
      console.log(
        `run ${run} ${co.root}: ${Math.round(r.perSecond)} jobs/s, backend ${r.backendUs.toFixed(1)} µs/job` +
          ` (kernel ${r.backendSysUs.toFixed(1)}), worker ${r.workerUs.toFixed(1)} µs/job` +
          ` (kernel ${r.workerSysUs.toFixed(1)}), WAL ${r.walRecords.toFixed(2)} rec ${r.walBytes.toFixed(0)} B` +
          ` ${r.walFpi.toFixed(3)} fpi /job, upd ${r.updates.toFixed(2)} hot ${r.hot.toFixed(2)} /job` +
          `  (load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`,
      );
      if (process.env.BENCH_STATEMENTS)
        for (const s of r.statements)
          console.log(
            `    ${s.q.padEnd(60)} calls ${s.calls} plans ${s.plans} rows ${s.rows} hit/job ${fmt(s.hit / JOBS, 2)}` +
              ` dirt/job ${fmt(s.dirtied / JOBS, 2)} walrec/job ${fmt(s.wal_records / JOBS, 2)}` +
              ` walB/job ${fmt(Number(s.wal_bytes) / JOBS, 0)} fpi ${s.wal_fpi} ms ${fmt(s.ms, 0)}`,
          );
    }
  }
  console.log(
    `\nmedians of ${RUNS} (load average at end: ${readFileSync('/proc/loadavg', 'utf8').trim()})`,
  );
  for (const [i, co] of checkouts.entries()) {
    const m = (key) => median(results[i].map((r) => r[key]));
    console.log(
      `${co.root}: ${Math.round(m('perSecond'))} jobs/s, backend ${m('backendUs').toFixed(1)} µs/job (kernel` +
        ` ${m('backendSysUs').toFixed(1)}), worker ${m('workerUs').toFixed(1)} µs/job (kernel` +
        ` ${m('workerSysUs').toFixed(1)}), WAL ${m('walRecords').toFixed(2)} records ${m('walBytes').toFixed(0)}` +
        ` B ${m('walFpi').toFixed(3)} fpi /job, updates ${m('updates').toFixed(2)} HOT ${m('hot').toFixed(2)} /job`,
    );
  }
  await admin.end();
  await server.stop();
}

await main();
