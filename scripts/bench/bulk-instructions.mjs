#!/usr/bin/env node
/**
 * The server's cost of a bulk enqueue: 1,000-row `driver.enqueueMany()` batches of the peers bench's rows (one queue,
 * one name, no tenant, one due time a batch, keys `n:<n>`) sent over ONE connection, for checkouts side by side:
 *
 *   BENCH_CHECKOUTS=/tmp/wt-old,. node scripts/bench/bulk-instructions.mjs   # default: this checkout alone
 *
 * Each checkout is read from its built `dist/` and migrates its own template database once; every run is then a fresh
 * database copied from it, so runs start alike. A round runs, for each checkout in turn, one session of BENCH_FEW
 * (default 4) batches and one of BENCH_MANY (default 12), each in a fresh database, and answers per batch the
 * difference of the two divided by the batches between them, which cancels the session's start and the statements'
 * first planning. Printed per checkout and round: backend CPU ms a batch (`/proc/<pid>/schedstat`, so the server must
 * run on this host) and, with BENCH_CALLGRIND=<dir>, backend instructions a batch — counted, unlike the CPU, whatever
 * else the machine runs. For that, run the server under
 *
 *   valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=<dir>/cg.%p postgres -D … -c autovacuum=off
 *
 * with DATABASE_URL pointing at it: every backend writes `<dir>/cg.<pid>` when its session ends.
 * BENCH_ROUNDS (default 2) rounds; BENCH_ICU=<locale> (say `en-US`) makes the templates ICU databases of that locale,
 * the way a database created under `en_US.UTF-8` compares text (the embedded server's default is libc `C.UTF-8`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPostgres } from './embedded-pg.mjs';
import { enqueueRequest } from './requests.mjs';
import { ROOT, pg, withDatabase } from './lib.mjs';

const FEW = Number(process.env.BENCH_FEW ?? 4);
const MANY = Number(process.env.BENCH_MANY ?? 12);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CALLGRIND = process.env.BENCH_CALLGRIND;
const ICU = process.env.BENCH_ICU;
const checkouts = (process.env.BENCH_CHECKOUTS ?? ROOT).split(',').map((dir) => resolve(dir));

const server = await startPostgres();
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
let databases = 0;

/** A database copied from `template` (or a new one), dropped by the answer's `drop()`. */
async function database(template) {
  const name = `bulk_${process.pid}_${databases++}`;
  const locale = ICU
    ? ` template template0 locale_provider icu icu_locale '${ICU}' locale 'C.UTF-8'`
    : '';
  await admin.query(`create database ${name}${template ? ` template ${template}` : locale}`);
  return {
    name,
    url: withDatabase(server.url, name),
    drop: () => admin.query(`drop database ${name}`),
  };
}

/** The checkout's packages as built, and its migrated template database. */
async function prepare(root) {
  const require = createRequire(join(root, 'package.json'));
  const jobs = require(join(root, 'libs', 'jobs', 'dist', 'index.js'));
  const jobsPg = require(join(root, 'libs', 'jobs-pg', 'dist', 'index.js'));
  const template = await database();
  const pool = new pg.Pool({ connectionString: template.url, max: 1 });
  await jobsPg.migrate(jobsPg.pgPoolExecutor(pool));
  await pool.end();
  return { root, jobs, jobsPg, template };
}

const cpuNs = (pid) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);

/** Instructions the backend `pid` ran, from its callgrind file once the session has ended. */
async function instructionsOf(pid) {
  const file = join(CALLGRIND, `cg.${pid}`);
  for (let tries = 0; tries < 600; tries++, await sleep(100)) {
    const totals = existsSync(file) && /^totals: (\d+)/m.exec(readFileSync(file, 'utf8'));
    if (totals) return Number(totals[1]);
  }
  throw new Error(`no callgrind totals in ${file}`);
}

/** One session of `batches` batches in a fresh copy of the checkout's template: its backend CPU and instructions. */
async function session({ jobs, jobsPg, template }, batches) {
  const db = await database(template.name);
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  const pid = (await pool.query('select pg_backend_pid() as p')).rows[0].p;
  const driver = jobsPg.postgresJobDriver({ executor: jobsPg.pgPoolExecutor(pool) });
  const before = cpuNs(pid);
  for (let b = 0, n = 10_000_000; b < batches; b++) {
    const runAt = Date.now();
    const rows = Array.from({ length: 1_000 }, () => {
      n += 1;
      return enqueueRequest(jobs.uuidv7, {
        queue: 'drain',
        name: 'bench.drain',
        input: { n, t: 0 },
        idempotencyKey: `n:${n}`,
        runAt,
      });
    });
    await driver.enqueueMany(rows);
  }
  const cpu = cpuNs(pid) - before;
  await pool.end();
  const instructions = CALLGRIND ? await instructionsOf(pid) : NaN;
  await db.drop();
  return { cpu, instructions };
}

const prepared = [];
for (const root of checkouts) prepared.push(await prepare(root));
console.log(
  `${FEW} and ${MANY} batches of 1,000 a session, differenced; ${ICU ? `ICU ${ICU}` : 'server default'} collation`,
);
for (let round = 1; round <= ROUNDS; round++) {
  for (const checkout of prepared) {
    const few = await session(checkout, FEW);
    const many = await session(checkout, MANY);
    const per = (key, unit) => (many[key] - few[key]) / (MANY - FEW) / unit;
    const instructions = CALLGRIND ? `, ${per('instructions', 1e6).toFixed(2)} M instructions` : '';
    console.log(
      `round ${round} ${checkout.root}: ${per('cpu', 1e6).toFixed(2)} ms backend CPU${instructions} a batch`,
    );
  }
}
for (const { template } of prepared) await template.drop();
await admin.end();
await server.stop();
