/**
 * The admin page's API over a big table: seeds x_jobs with BENCH_ADMIN_ROWS rows (default 1,000,000: mostly done,
 * some dead, ready and delayed, over 4 queues and 20 job names), mounts JobsAdminModule on a Nest app over it, and times
 * every call the page makes — over HTTP, through the guard-less (`public: true`) controller, as the browser sends them.
 * Prints per call the median, p95 and max of BENCH_ADMIN_RUNS runs (default 30) and the load average.
 *
 *   node scripts/bench/admin-api.mjs            # embedded PostgreSQL (fsync on), or DATABASE_URL when set
 *
 * Runs the TypeScript sources (through the specs' swc register hook), so no `npm run build` is needed.
 */
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres } from './embedded-pg.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
require(join(ROOT, 'libs/jobs-pg/test/swc-register.js'));
require('reflect-metadata');
const jobs = require('@ultimat3/jobs');
const jobsPg = require('@ultimat3/jobs-pg');
const { NestFactory } = require('@nestjs/core');
const pg = require('pg');

const ROWS = Number(process.env.BENCH_ADMIN_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_ADMIN_RUNS ?? 30);
const BATCH = 100_000;
const QUEUES = ['default', 'mail', 'billing', 'reports'];

/**
 * One insert of rows [from, to): state by position (90% done, 5% dead, 3% ready, 2% delayed), created evenly over
 * the last two days, each with a UUIDv7 id of its creation time as an enqueue mints it (PostgreSQL 18's `uuidv7()`),
 * so a created window a day ago holds ~2 % of the rows, as an operator's would.
 */
async function seed(pool, from, to) {
  await pool.query(
    `insert into x_jobs (id, run_id, name, queue, input, idempotency_key, state, attempt, max_attempts,
       priority, run_at, created_at, updated_at, finished_at, last_error)
     select uuidv7(x.t - now()), gen_random_uuid(), 'bench.admin.' || (g % 20), ($3::text[])[1 + g % 4],
       jsonb_build_object('n', g), 'k:' || g, s.state, 1, 3, 0,
       case when s.state = 'delayed' then now() + interval '1 day' else t end, t, t,
       case when s.state in ('done', 'dead') then t end,
       case when s.state = 'dead' then 'X_BENCH: failed' end
     from generate_series($1::int, $2::int) g,
       lateral (select now() - interval '2 days' + g * $4::int * interval '1 ms' as t) x,
       lateral (select case when g % 100 < 90 then 'done' when g % 100 < 95 then 'dead'
                            when g % 100 < 98 then 'ready' else 'delayed' end as state) s`,
    [from, to - 1, QUEUES, Math.max(1, Math.floor(172_800_000 / ROWS))],
  );
}

async function freshDatabase(serverUrl) {
  const name = `jobs_bench_admin_${process.pid}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(`drop database if exists ${name} with (force)`);
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  await jobsPg.migrate(jobsPg.pgPoolExecutor(pool));
  return {
    url: url.toString(),
    pool,
    async drop() {
      await pool.end();
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

const pct = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function time(base, path) {
  const times = [];
  let status = 0;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const response = await fetch(`${base}${path}`);
    await response.arrayBuffer();
    times.push(performance.now() - started);
    status = response.status;
  }
  times.sort((a, b) => a - b);
  return { status, median: pct(times, 50), p95: pct(times, 95), max: times[times.length - 1] };
}

async function main() {
  const server = await startPostgres({ log: (m) => console.log(m) });
  const db = await freshDatabase(server.url);
  let app;
  try {
    const seeded = performance.now();
    for (let from = 0; from < ROWS; from += BATCH)
      await seed(db.pool, from, Math.min(ROWS, from + BATCH));
    await db.pool.query('vacuum analyze x_jobs');
    console.log(
      `seeded ${ROWS.toLocaleString('en-US')} rows in ${((performance.now() - seeded) / 1000).toFixed(1)} s`,
    );

    app = await NestFactory.create(
      {
        module: class AdminBenchApp {},
        imports: [
          jobs.JobsModule.forRoot({
            driver: 'postgres',
            postgres: { url: db.url, poolSize: 4 },
            roles: ['web'],
          }),
          jobs.JobsAdminModule.forRoot({ public: true, assetsDir: ROOT }),
        ],
      },
      { logger: false },
    );
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${app.getHttpServer().address().port}/_x/jobs/api`;

    const first = await (await fetch(`${base}/jobs`)).json();
    const deadPage = await (await fetch(`${base}/dead?queue=mail`)).json();
    const someId = deadPage.jobs[0].id;
    const dayAgo = Date.now() - 86_400_000;
    const calls = [
      ['session', '/session'],
      ['queues (the queues page, every poll)', '/queues'],
      ['manifest', '/manifest'],
      [
        'counters of one job, last hour',
        `/counters?job=bench.admin.3&sinceMs=${Date.now() - 3_600_000}`,
      ],
      ['jobs, first page', '/jobs'],
      ['jobs, next page (cursor)', `/jobs?after=${encodeURIComponent(first.next)}`],
      ['jobs?state=ready', '/jobs?state=ready'],
      ['jobs?queue=billing&state=done', '/jobs?queue=billing&state=done'],
      ['jobs?name=bench.admin.7', '/jobs?name=bench.admin.7'],
      ['jobs?idPrefix=<4 hex>', `/jobs?idPrefix=${someId.slice(0, 4)}`],
      [
        'jobs, created in a 1 h window a day ago',
        `/jobs?createdFrom=${dayAgo}&createdTo=${dayAgo + 3_600_000}`,
      ],
      ['jobs?limit=200 (the largest page)', '/jobs?limit=200'],
      ['dead letters', '/dead'],
      ['dead letters of one queue', '/dead?queue=mail'],
      ['one job', `/jobs/${someId}`],
      ['workers', '/workers'],
      ['tasks', '/tasks'],
      ['backfills', '/backfills'],
    ];
    console.log(
      `\nAdmin API over ${ROWS.toLocaleString('en-US')} rows in x_jobs, ${RUNS} runs per call (ms)`,
    );
    console.log(
      `${'call'.padEnd(44)} ${'status'.padStart(6)} ${'median'.padStart(8)} ${'p95'.padStart(8)} ${'max'.padStart(8)}`,
    );
    for (const [label, path] of calls) {
      const r = await time(base, path);
      const f = (n) => n.toFixed(1).padStart(8);
      console.log(
        `${label.padEnd(44)} ${String(r.status).padStart(6)} ${f(r.median)} ${f(r.p95)} ${f(r.max)}${r.p95 >= 100 ? '  <-- over 100 ms' : ''}`,
      );
    }
    console.log(
      `load average: ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await app?.close();
    await db.drop();
    await server.stop();
  }
}

await main();
