#!/usr/bin/env node
/**
 * What an enqueue costs the enqueuing process: client CPU microseconds (`process.cpuUsage()`) per job on the paths an
 * app takes — a serial `handle.enqueue()` and a serial `driver.enqueue()` of a ready-built request on Redis and on
 * PostgreSQL, and `handle.enqueueMany()` of 1,000 on both (CPU per batch). CPU, not wall time: on a shared, loaded
 * machine the CPU a call burns in this process holds still where wall time does not; jobs/s wall is printed for
 * reference only.
 *
 * Reads the TypeScript sources (compiled on load), so it needs no build. Give it checkouts to compare and each runs in
 * its own child process, interleaved, against one `redis-server` and one embedded PostgreSQL (a fresh database and a
 * fresh key prefix per pass), and the medians are printed side by side:
 *
 *   node scripts/bench/enqueue-cost.mjs                        # this checkout
 *   node scripts/bench/enqueue-cost.mjs old=/tmp/wt-old new=.  # A/B (BENCH_COST_PAIRS rounds, default 3)
 *
 * BENCH_COST_SERIAL (default 2,000) serial enqueues per measured pass, each path warmed first by as many untimed
 * calls (a process's first thousand calls cost several times a warm one's); BENCH_COST_BATCHES (default 10) batches of
 * 1,000 per bulk pass, after 5 untimed ones. BENCH_COST_PROFILE=<dir> writes each child's `--cpu-prof` there.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres } from './embedded-pg.mjs';
import { startRedis } from './peers/redis.mjs';
import { enqueueRequest } from './requests.mjs';

const HERE = fileURLToPath(import.meta.url);
const ROOT = join(dirname(HERE), '..', '..');
const SERIAL = Number(process.env.BENCH_COST_SERIAL ?? 2_000);
const BATCHES = Number(process.env.BENCH_COST_BATCHES ?? 10);
const PAIRS = Number(process.env.BENCH_COST_PAIRS ?? 3);
const BATCH = 1_000;

/** The packages of the checkout at `root`, from their sources, and its `pg`. */
function load(root) {
  const require = createRequire(join(root, 'package.json'));
  require(join(root, 'libs', 'jobs-pg', 'test', 'swc-register.js'));
  return {
    jobs: require(join(root, 'libs', 'jobs', 'src', 'index.ts')),
    jobsPg: require(join(root, 'libs', 'jobs-pg', 'src', 'index.ts')),
    jobsRedis: require(join(root, 'libs', 'jobs-redis', 'src', 'index.ts')),
    pg: require('pg'),
  };
}

/** Client CPU µs per job of `fn`, which handles `count` jobs, and jobs/s wall. */
async function costOf(count, fn) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await fn();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { cpu: (used.user + used.system) / count, perSecond: (count * 1_000) / wall };
}

/** The no-op job of `queue`, as the peers bench declares it: input `{ n, t }`, keyed by `n`. */
function handleOf(jobs, queue) {
  return jobs.job({
    name: `cost.${queue}`,
    queue,
    input: jobs.t.object({ n: jobs.t.number, t: jobs.t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run: () => undefined,
  });
}

let seq = 0;
const input = () => ({ n: seq++, t: 0 });

/** The four passes over one backend: serial handle, serial driver, bulk handle (per job and per batch). */
async function passes(lib, backend, tag) {
  const { jobs } = lib;
  const { driver } = backend;
  jobs.setJobsFacade(jobs.directJobsFacade({ driver }));
  const handle = handleOf(jobs, `${tag}.serial`);
  const requests = (count) =>
    Array.from({ length: count }, () =>
      enqueueRequest(jobs.uuidv7, {
        name: `cost.${tag}.driver`,
        queue: `${tag}.driver`,
        input: input(),
      }),
    );
  const out = {};
  for (let i = 0; i < SERIAL; i++) await handle.enqueue(input());
  out[`${tag} handle.enqueue`] = await costOf(SERIAL, async () => {
    for (let i = 0; i < SERIAL; i++) await handle.enqueue(input());
  });
  for (const r of requests(SERIAL)) await driver.enqueue(r);
  const built = requests(SERIAL);
  out[`${tag} driver.enqueue`] = await costOf(SERIAL, async () => {
    for (const r of built) await driver.enqueue(r);
  });
  const bulk = handleOf(jobs, `${tag}.bulk`);
  const batch = () => Array.from({ length: BATCH }, input);
  for (let b = 0; b < 5; b++) await bulk.enqueueMany(batch());
  const inputs = Array.from({ length: BATCHES }, batch);
  const many = await costOf(BATCHES * BATCH, async () => {
    for (const b of inputs) await bulk.enqueueMany(b);
  });
  out[`${tag} handle.enqueueMany`] = many;
  return out;
}

/** A fresh database on the server at `server`, answered as its URL. */
async function freshDatabase(pg, server, name) {
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

async function child(root, pgServer, redisUrl, pass) {
  const lib = load(root);
  const out = {};
  const redis = await lib.jobsRedis.redisBackend({ url: redisUrl, prefix: `cost${pass}` });
  try {
    Object.assign(out, await passes(lib, redis, 'redis'));
  } finally {
    await redis.close();
  }
  const url = await freshDatabase(lib.pg, pgServer, `cost_${pass}`);
  const pgBackend = await lib.jobsPg.postgresBackend({ url });
  try {
    Object.assign(out, await passes(lib, pgBackend, 'pg'));
  } finally {
    await pgBackend.close();
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const loadavg = () => spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.trim();

async function parent(variants) {
  const pgServer = await startPostgres();
  const redisServer = await startRedis();
  const results = new Map(variants.map(([name]) => [name, []]));
  const profile = process.env.BENCH_COST_PROFILE;
  console.log(`load average ${loadavg()} at start`);
  let pass = 0;
  try {
    for (let pair = 0; pair < PAIRS; pair++) {
      const order = pair % 2 === 0 ? variants : [...variants].reverse();
      for (const [name, root] of order) {
        pass++;
        const flags = profile
          ? [
              '--cpu-prof',
              `--cpu-prof-dir=${profile}`,
              `--cpu-prof-name=${name}-${pass}.cpuprofile`,
            ]
          : [];
        const r = spawnSync(
          process.execPath,
          [...flags, HERE, '--child', root, pgServer.url, redisServer.url, String(pass)],
          { encoding: 'utf8', env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') } },
        );
        if (r.status !== 0) throw new Error(`${name} failed:\n${r.stderr}`);
        results.get(name).push(JSON.parse(r.stdout.trim().split('\n').pop()));
        console.log(`  round ${pair + 1} ${name} done (load ${loadavg().split(' ')[0]})`);
      }
    }
  } finally {
    await redisServer.stop();
    await pgServer.stop();
  }
  console.log(
    `\nclient CPU per job, medians of ${PAIRS} (serial ${SERIAL.toLocaleString('en-US')}, bulk ${BATCHES} × ${BATCH}; load ${loadavg()})`,
  );
  console.log('  path                          checkout  client CPU µs/job  jobs/s wall');
  for (const path of Object.keys(results.get(variants[0][0])[0])) {
    for (const [name] of variants) {
      const rs = results.get(name).map((r) => r[path]);
      const cpu = median(rs.map((r) => r.cpu)).toFixed(1);
      const rate = Math.round(median(rs.map((r) => r.perSecond))).toLocaleString('en-US');
      console.log(
        `  ${path.padEnd(30)}${name.padEnd(10)}${cpu.padStart(17)}  ${rate.padStart(11)}`,
      );
    }
  }
}

if (process.argv[2] === '--child') {
  const [, , , root, pgServer, redisUrl, pass] = process.argv;
  await child(root, pgServer, redisUrl, pass);
  process.exit(0);
} else {
  const given = process.argv.slice(2).map((arg) => {
    const at = arg.indexOf('=');
    return at < 0 ? [arg, resolve(arg)] : [arg.slice(0, at), resolve(arg.slice(at + 1))];
  });
  await parent(given.length > 0 ? given : [['this', ROOT]]);
}
