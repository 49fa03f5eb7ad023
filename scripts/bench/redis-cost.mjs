#!/usr/bin/env node
/**
 * What each hot operation of the Redis driver costs, counted rather than timed: Redis commands and scripts sent
 * (EVALSHA calls; a rescuing claim sends two in one round trip) per job from `INFO commandstats`, the server's CPU
 * per job from `INFO cpu`, the time spent inside scripts per job (`INFO commandstats` usec of EVALSHA: the scripts'
 * own work, without networking or parsing — the steadiest figure on a loaded machine), and the client process's CPU per job (`process.cpuUsage()`) — beside the floor of this
 * machine in the same run: a bare `LPUSH` and a bare `EVALSHA` of `return 1`, each awaited before the next. On a
 * shared, loaded machine the counts hold still and the CPU figures move far less than wall time; jobs/s wall is
 * printed for reference only.
 *
 * Operations: serial enqueue (`driver.enqueue`, each awaited), the drain of pre-enqueued no-op jobs by a real
 * `jobWorker` at concurrency 10, the claim and the ack scripts apart (`driver.claim` then `driver.ackMany`, 100 rows a
 * call, as many rows as the serial pass), and the pickup of a job enqueued one at a time (50 ms apart) to an idle worker in
 * the same process (its commands and scripts; its latency is `bench:peers`'s, across processes). The drain
 * pass includes the worker's start.
 *
 * Reads the TypeScript sources (compiled on load), so it needs no build; each checkout runs in its own child process
 * on its own `redis-server` (persistence off), interleaved, and the medians are printed side by side:
 *
 *   node scripts/bench/redis-cost.mjs                        # this checkout
 *   node scripts/bench/redis-cost.mjs old=/tmp/wt-old new=.  # A/B (BENCH_COST_PAIRS rounds, default 3)
 *
 * BENCH_COST_JOBS (default 20,000) jobs drained per pass; serial and floor passes take a tenth of it. Each serial
 * pass runs warm, as a long-lived app does: 2,000 untimed driver enqueues and 1,000 untimed floor calls of each kind
 * first (a process's first thousand calls cost several times a warm one's, and its JIT's work is counted as the
 * process's CPU).
 */
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedis } from './peers/redis.mjs';
import { loadCheckout } from './redis-checkout.mjs';
import { enqueueRequest } from './requests.mjs';

const HERE = fileURLToPath(import.meta.url);
const ROOT = join(dirname(HERE), '..', '..');
const JOBS = Number(process.env.BENCH_COST_JOBS ?? 20_000);
const PAIRS = Number(process.env.BENCH_COST_PAIRS ?? 3);
const SERIAL = Math.max(100, Math.round(JOBS / 10));
const PICKUPS = 40;

const load = loadCheckout;

/** The server's counters now: commands by name, the µs spent in scripts (EVALSHA), and its CPU seconds. */
async function serverCounters(admin) {
  const text = await admin.info('all');
  const calls = {};
  let cpu = 0;
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[m[1]] = Number(m[2]);
  for (const m of text.matchAll(/^used_cpu_(?:user|sys):([\d.]+)/gm)) cpu += Number(m[1]);
  const script = Number(/^cmdstat_evalsha:calls=\d+,usec=(\d+)/m.exec(text)?.[1] ?? 0);
  return { calls, cpu, script };
}

/** Runs `fn` (which handles `count` jobs) and answers its costs per job. */
async function costOf(admin, count, fn) {
  const before = await serverCounters(admin);
  const cpu = process.cpuUsage();
  const started = performance.now();
  await fn();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const after = await serverCounters(admin);
  let commands = 0;
  for (const [name, n] of Object.entries(after.calls)) {
    // the measuring itself: one INFO before the pass (the one after is not counted yet)
    const made = n - (before.calls[name] ?? 0) - (name === 'info' ? 1 : 0);
    commands += made;
  }
  const evalsha = (after.calls.evalsha ?? 0) - (before.calls.evalsha ?? 0);
  return {
    commands: commands / count,
    scripts: evalsha / count,
    redisCpu: ((after.cpu - before.cpu) * 1e6) / count,
    scriptUs: (after.script - before.script) / count,
    clientCpu: (used.user + used.system) / count,
    perSecond: (count * 1_000) / wall,
  };
}

let seq = 0;
/** A no-op job's request on `queue`, keyed by its `n` as the worker's job declares. */
function request(jobs, queue) {
  const n = seq++;
  return enqueueRequest(jobs.uuidv7, {
    name: `cost.${queue}`,
    queue,
    input: { n, t: 0 },
    idempotencyKey: `n:${n}`,
  });
}

/** A worker at concurrency 10 on `queue` whose no-op job calls `onJob`; answers its stop. */
async function startWorker(lib, backend, queue, onJob) {
  const registry = new lib.jobs.JobRegistry();
  registry.register(
    lib.jobs.job({
      name: `cost.${queue}`,
      queue,
      input: lib.jobs.t.object({ n: lib.jobs.t.number, t: lib.jobs.t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => onJob(),
    }),
  );
  const worker = lib.jobs.jobWorker({ driver: backend.driver, registry, concurrency: 10 });
  const wake = backend.startWake(worker);
  while (!backend.driver.wake.live) await new Promise((r) => setTimeout(r, 5));
  await worker.start();
  return async () => {
    await worker.stop();
    await wake.stop();
  };
}

async function child(root) {
  const lib = load(root);
  const server = await startRedis();
  const admin = new lib.IORedis(server.url);
  const backend = await lib.jobsRedis.redisBackend({ url: server.url, prefix: 'cost' });
  const { driver } = backend;
  const out = {};
  try {
    for (let i = 0; i < 2_000; i++) await driver.enqueue(request(lib.jobs, 'warm'));
    const floor = new lib.IORedis(server.url);
    const sha = await floor.script('LOAD', 'return 1');
    // a fresh connection's first calls cost several times a warm one's (the driver's were warmed above): warm both
    // floors as well, so each pass compares warm code with warm code
    for (let i = 0; i < 1_000; i++) {
      await floor.lpush('cost:warm', 'x');
      await floor.evalsha(sha, 0);
    }
    out.lpush = await costOf(admin, SERIAL, async () => {
      for (let i = 0; i < SERIAL; i++) await floor.lpush('cost:floor', 'x');
    });
    out.evalsha = await costOf(admin, SERIAL, async () => {
      for (let i = 0; i < SERIAL; i++) await floor.evalsha(sha, 0);
    });
    floor.disconnect();
    out.serial = await costOf(admin, SERIAL, async () => {
      for (let i = 0; i < SERIAL; i++) await driver.enqueue(request(lib.jobs, 'serial'));
    });
    for (let i = 0; i < JOBS; i += 1_000)
      await driver.enqueueMany(
        Array.from({ length: Math.min(1_000, JOBS - i) }, () => request(lib.jobs, 'drain')),
      );
    let drained = 0;
    let done;
    const all = new Promise((r) => (done = r));
    let stop;
    out.drain = await costOf(admin, JOBS, async () => {
      stop = await startWorker(lib, backend, 'drain', () => {
        if (++drained === JOBS) done();
      });
      await all;
    });
    await stop();
    // the claim and the ack scripts apart, in batches of 100 as a busy worker sends them: their time inside the
    // server (commandstats usec) per row, without a worker's other commands or networking in the figure
    for (let i = 0; i < SERIAL; i += 1_000)
      await driver.enqueueMany(
        Array.from({ length: Math.min(1_000, SERIAL - i) }, () => request(lib.jobs, 'split')),
      );
    const claimed = [];
    const slots = [{ queue: 'split', limit: 100 }];
    out.claim = await costOf(admin, SERIAL, async () => {
      for (;;) {
        const rows = await driver.claim({ workerId: 'cost', visibilityTimeoutMs: 60_000, slots });
        if (rows.length === 0) break;
        claimed.push(...rows);
      }
    });
    out.ack = await costOf(admin, SERIAL, async () => {
      for (let i = 0; i < claimed.length; i += 100)
        await driver.ackMany(
          claimed
            .slice(i, i + 100)
            .map((r) => ({ jobId: r.id, ...lib.jobs.claimOf(r), durationMs: 1 })),
        );
    });
    let picked = 0;
    stop = await startWorker(lib, backend, 'pickup', () => picked++);
    await new Promise((r) => setTimeout(r, 300));
    out.pickup = await costOf(admin, PICKUPS, async () => {
      for (let i = 0; i < PICKUPS; i++) {
        await driver.enqueue(request(lib.jobs, 'pickup'));
        await new Promise((r) => setTimeout(r, 50));
      }
      while (picked < PICKUPS) await new Promise((r) => setTimeout(r, 5));
      // the claims that follow a run (finding the queue empty) land within a few ms
      await new Promise((r) => setTimeout(r, 100));
    });
    await stop();
  } finally {
    await backend.close();
    admin.disconnect();
    await server.stop();
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const loadavg = () => spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.trim();

function parent(variants) {
  const results = new Map(variants.map(([name]) => [name, []]));
  console.log(`load average ${loadavg()} at start`);
  for (let pair = 0; pair < PAIRS; pair++) {
    const order = pair % 2 === 0 ? variants : [...variants].reverse();
    for (const [name, root] of order) {
      const r = spawnSync(process.execPath, [HERE, '--child', root], {
        encoding: 'utf8',
        env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') },
      });
      if (r.status !== 0) throw new Error(`${name} failed:\n${r.stderr}`);
      results.get(name).push(JSON.parse(r.stdout.trim().split('\n').pop()));
      console.log(`  round ${pair + 1} ${name} done (load ${loadavg().split(' ')[0]})`);
    }
  }
  console.log(
    `\nper job, medians of ${PAIRS} (drain ${JOBS.toLocaleString('en-US')} jobs, serial and floors ${SERIAL.toLocaleString('en-US')}, pickup ${PICKUPS}; load ${loadavg()})`,
  );
  console.log(
    '  operation  checkout  commands  scripts  script µs  Redis CPU µs  client CPU µs  jobs/s wall',
  );
  for (const op of ['lpush', 'evalsha', 'serial', 'drain', 'claim', 'ack', 'pickup']) {
    for (const [name] of variants) {
      const rs = results.get(name).map((r) => r[op]);
      const m = (key, digits) => median(rs.map((r) => r[key])).toFixed(digits);
      console.log(
        `  ${op.padEnd(9)}  ${name.padEnd(8)}  ${m('commands', 2).padStart(8)}  ${m('scripts', 3).padStart(7)}  ${m('scriptUs', 1).padStart(9)}  ${m('redisCpu', 1).padStart(12)}  ${m('clientCpu', 1).padStart(13)}  ${m('perSecond', 0).padStart(11)}`,
      );
    }
  }
}

const args = process.argv.slice(2);
if (args[0] === '--child') await child(resolve(args[1]));
else {
  const variants = args.length === 0 ? [['this', ROOT]] : args.map((a) => a.split('='));
  parent(variants.map(([name, root]) => [name, resolve(root)]));
}
