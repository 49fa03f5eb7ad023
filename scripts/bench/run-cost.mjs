#!/usr/bin/env node
/**
 * What one run costs the worker's process: CPU microseconds and promises per no-op run, on the memory driver — through
 * the attempt alone (`Attempt.run()` over rows claimed up front) and through a real `jobWorker` at concurrency 10 —
 * with the memory driver's acks (`worker`), and with acks answered at once (`bare`: the worker's own cost alone).
 * CPU time (`process.cpuUsage()`), not wall time: on a shared, loaded machine the CPU a run burns is the figure that
 * holds still; promises are counted with an async hook, and the bytes a run allocates (young garbage included, the
 * work each scavenge is paid for) with V8's sampling heap profiler, each on a separate, smaller pass (both are slow).
 *
 * Reads the TypeScript sources (compiled on load, as the specs' child processes are), so it needs no build. Give it
 * checkouts to compare and it runs each in its own child process, interleaved, and prints the medians side by side:
 *
 *   node scripts/bench/run-cost.mjs                       # this checkout
 *   node scripts/bench/run-cost.mjs old=/tmp/wt-old new=.  # A/B, interleaved (BENCH_COST_PAIRS rounds, default 3)
 *
 * BENCH_COST_JOBS (default 50,000) runs per measured pass. BENCH_COST_PG=embedded (or a server URL) adds the drain
 * of as many rows from PostgreSQL (a fresh database per pass): the worker process's CPU per job, `pg` included.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { enqueueRequest } from './requests.mjs';
import { bytesOf, cpuOf, promisesOf } from './run-cost-measures.mjs';

const HERE = fileURLToPath(import.meta.url);
const ROOT = join(dirname(HERE), '..', '..');
const JOBS = Number(process.env.BENCH_COST_JOBS ?? 50_000);
const PAIRS = Number(process.env.BENCH_COST_PAIRS ?? 3);
const COUNTED = 5_000;
const CONCURRENCY = 10;

/** The packages of the checkout at `root`, from their sources. */
function load(root) {
  const require = createRequire(join(root, 'package.json'));
  require(join(root, 'libs', 'jobs-pg', 'test', 'swc-register.js'));
  return require(join(root, 'libs', 'jobs', 'src', 'index.ts'));
}

let seq = 0;
/** A no-op run's request on the `cost` queue: its input and idempotency key numbered in the order it was built. */
function request(jobs, name) {
  const n = seq++;
  return enqueueRequest(jobs.uuidv7, {
    name,
    queue: 'cost',
    input: { n },
    idempotencyKey: `k:${n}`,
  });
}

async function fill(jobs, driver, name, total) {
  for (let i = 0; i < total; i += 1_000) {
    const size = Math.min(1_000, total - i);
    await driver.enqueueMany(Array.from({ length: size }, () => request(jobs, name)));
  }
}

/** `total` claimed rows run through the attempt, CONCURRENCY at a time, with the driver's own ack. */
async function attempts({ jobs }, handle, total) {
  const driver = jobs.memoryJobDriver();
  const registry = new jobs.JobRegistry();
  registry.register(handle);
  const job = registry.get(handle.name);
  const events = jobs.memoryEventBus();
  await fill(jobs, driver, handle.name, total);
  const rows = await driver.claim({
    workerId: 'cost',
    slots: [{ queue: 'cost', limit: total, names: [handle.name] }],
    visibilityTimeoutMs: 600_000,
  });
  const run = (claimed) =>
    jobs.executeJob({
      driver,
      job,
      claimed,
      clock: jobs.systemClock,
      logger: jobs.silentLogger,
      events,
    });
  return async () => {
    let next = 0;
    const lane = async () => {
      while (next < rows.length) await run(rows[next++]);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  };
}

/**
 * `total` rows drained by a real worker at CONCURRENCY. The rows are claimed from the memory driver up front and
 * handed out by the worker's claims in the order asked: the memory driver's claim walks its whole queue, which would
 * measure the driver (PostgreSQL does that walk in its own process), not the worker.
 */
async function drain(lib, handle, total) {
  return replayedDrain(lib, handle, total, false);
}

/**
 * {@link drain} with the acks answered at once, every one landed (`ack` and `ackMany` return without touching the
 * memory store): what is left is the worker's own cost per run — the attempt, the bookkeeping, the batching.
 */
async function bareDrain(lib, handle, total) {
  return replayedDrain(lib, handle, total, true);
}

async function replayedDrain({ jobs }, handle, total, bare) {
  const driver = jobs.memoryJobDriver();
  const registry = new jobs.JobRegistry();
  registry.register(handle);
  await fill(jobs, driver, handle.name, total);
  const workerId = 'cost-worker';
  const rows = await driver.claim({
    workerId,
    slots: [{ queue: 'cost', limit: total, names: [handle.name] }],
    visibilityTimeoutMs: 600_000,
  });
  const replay = Object.create(driver);
  // handed out by position: a splice off the front would move the whole array on every claim
  let next = 0;
  replay.claim = async ({ slots }) => {
    const size = slots.reduce((n, s) => n + s.limit + (s.ahead ?? 0), 0);
    next += size;
    return rows.slice(next - size, next);
  };
  if (bare) {
    replay.ack = async () => true;
    replay.ackMany = async (items) => items.map(() => true);
  }
  // the worker's rescuing claims (its first, and every idle one) are replayed alike: nothing lapses here
  replay.claimRescuing = async (options) => ({
    claimed: await replay.claim(options),
    rescued: { buried: [] },
  });
  return async () => {
    const worker = jobs.jobWorker({ driver: replay, registry, concurrency: CONCURRENCY, workerId });
    await worker.start();
    await new Promise((done) => {
      const check = () => (worker.stats().completed >= total ? done() : setImmediate(check));
      check();
    });
    await worker.stop();
  };
}

/**
 * `total` rows drained from PostgreSQL (`BENCH_COST_PG`: a server URL; a fresh database per pass) by a real worker at
 * CONCURRENCY: this process's CPU per job is the worker's whole cost, its driver and `pg` included.
 */
async function pgDrain({ jobs, jobsPg, pg }, handle, total) {
  const server = process.env.BENCH_COST_PG;
  const name = `jobs_cost_${process.pid}_${seq++}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 20 });
  const executor = jobsPg.pgPoolExecutor(pool);
  await jobsPg.migrate(executor);
  const driver = jobsPg.postgresJobDriver({ executor });
  await fill(jobs, driver, handle.name, total);
  await pool.query('vacuum analyze x_jobs');
  const registry = new jobs.JobRegistry();
  registry.register(handle);
  return async () => {
    const worker = jobs.jobWorker({ driver, registry, concurrency: CONCURRENCY });
    const started = performance.now();
    await worker.start();
    await new Promise((done) => {
      const check = () => (worker.stats().completed >= total ? done() : setTimeout(check, 1));
      check();
    });
    const perSecond = (total * 1000) / (performance.now() - started);
    await worker.stop();
    await pool.end();
    const drop = new pg.Client({ connectionString: server });
    await drop.connect();
    await drop.query(`drop database ${name} with (force)`);
    await drop.end();
    return perSecond;
  };
}

/** One checkout's figures: µs of CPU and promises per run, attempt alone and worker. */
async function child(root) {
  const jobs = load(root);
  const lib = { jobs };
  const handle = jobs.job({
    name: 'bench.cost',
    queue: 'cost',
    input: jobs.t.object({ n: jobs.t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run: () => undefined,
  });
  const out = {};
  const sections = [
    ['attempt', attempts],
    ['worker', drain],
    ['bare', bareDrain],
  ];
  if (process.env.BENCH_COST_PG !== undefined) {
    const require = createRequire(join(root, 'package.json'));
    lib.jobsPg = require(join(root, 'libs', 'jobs-pg', 'src', 'index.ts'));
    lib.pg = require('pg');
    sections.push(['pg', pgDrain]);
  }
  for (const [label, make] of sections) {
    await (
      await make(lib, handle, COUNTED)
    )(); // warm
    const counted = await make(lib, handle, COUNTED);
    const promises = (await promisesOf(counted)) / COUNTED;
    const bytes = (await bytesOf(await make(lib, handle, COUNTED))) / COUNTED;
    const measured = await make(lib, handle, JOBS);
    const { cpu, answer } = await cpuOf(measured);
    out[label] = {
      cpu: cpu / JOBS,
      promises,
      bytes,
      ...(answer === undefined ? {} : { perSecond: answer }),
    };
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function parent(variants, env) {
  const results = new Map(variants.map(([name]) => [name, []]));
  for (let pair = 0; pair < PAIRS; pair++) {
    const order = pair % 2 === 0 ? variants : [...variants].reverse();
    for (const [name, root] of order) {
      const r = spawnSync(process.execPath, [HERE, '--child', root], {
        encoding: 'utf8',
        env: { ...process.env, ...env, NODE_PATH: join(ROOT, 'node_modules') },
      });
      if (r.status !== 0) throw new Error(`${name} failed:\n${r.stderr}`);
      const figures = JSON.parse(r.stdout.trim().split('\n').pop());
      results.get(name).push(figures);
      console.log(`  round ${pair + 1} ${name}: ${JSON.stringify(figures)}`);
    }
  }
  console.log(
    `\n${JOBS.toLocaleString('en-US')} no-op runs per pass, medians of ${PAIRS} (load ${loadavg()})`,
  );
  for (const section of ['attempt', 'worker', 'bare', 'pg']) {
    for (const [name] of variants) {
      const rs = results.get(name).filter((r) => r[section] !== undefined);
      if (rs.length === 0) continue;
      const cpu = median(rs.map((r) => r[section].cpu));
      const promises = median(rs.map((r) => r[section].promises));
      const bytes = median(rs.map((r) => r[section].bytes ?? Number.NaN));
      const rate =
        section === 'pg'
          ? `  ${Math.round(median(rs.map((r) => r.pg.perSecond)))} jobs/s wall`
          : '';
      console.log(
        `  ${section.padEnd(8)} ${name.padEnd(6)} ${cpu.toFixed(2).padStart(7)} µs CPU/run  ${promises.toFixed(1).padStart(5)} promises/run  ${(bytes / 1024).toFixed(2).padStart(6)} KB allocated/run${rate}`,
      );
    }
  }
}

function loadavg() {
  return process.platform === 'linux'
    ? spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.trim()
    : '?';
}

const args = process.argv.slice(2);
if (args[0] === '--child') await child(resolve(args[1]));
else {
  const variants = args.length === 0 ? [['this', ROOT]] : args.map((a) => a.split('='));
  const named = variants.map(([name, root]) => [name, resolve(root)]);
  if (process.env.BENCH_COST_PG === 'embedded') {
    const { startPostgres } = await import('./embedded-pg.mjs');
    const server = await startPostgres();
    try {
      parent(named, { BENCH_COST_PG: server.url });
    } finally {
      await server.stop();
    }
  } else parent(named, {});
}
