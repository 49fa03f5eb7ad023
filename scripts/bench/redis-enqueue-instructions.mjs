#!/usr/bin/env node
/**
 * The instructions the producer process executes for one `handle.enqueue()` on Redis at a trickle, counted by
 * valgrind's callgrind rather than timed: a producer sends BENCH_INSTR_CALLS enqueues (default 100) 50 ms apart, as
 * `bench:peers`' pickup does, so every call runs cold, after 20 untimed ones; the counters are zeroed before the first
 * measured call and dumped after the last (`callgrind_control`), and the window's instructions are divided by the
 * calls. The same producer with the enqueues left out (its sleeps, timers and the two `callgrind_control` runs alone)
 * is counted once per checkout and printed as the harness, to subtract.
 *
 * Node runs with `--jitless` by default (BENCH_INSTR_JIT=1 for the JIT): the interpreter's counts move ~1% between runs
 * where the JIT's move by up to 20% (a compile or a GC landing in the window), and a cold call runs mostly unoptimised
 * code anyway. Each checkout runs from its BUILT `dist` (`npm run -s build` first), in its own valgrind'd process; the
 * checkouts of a round run side by side on one `redis-server` (the counts do not care about the load):
 *
 *   node scripts/bench/redis-enqueue-instructions.mjs                           # this checkout
 *   node scripts/bench/redis-enqueue-instructions.mjs main=/work/main new=.    # A/B, BENCH_INSTR_ROUNDS (default 2)
 *
 * Needs `valgrind` (with `callgrind_control`) and `redis-server` on PATH; ~1 minute a round.
 */
import { exec, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startRedis } from './peers/redis.mjs';

const HERE = fileURLToPath(import.meta.url);
const CALLS = Number(process.env.BENCH_INSTR_CALLS ?? 100);
const ROUNDS = Number(process.env.BENCH_INSTR_ROUNDS ?? 2);
const WARMUP = 20;
const GAP_MS = 50;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The producer, inside valgrind: CALLS enqueues (none when `empty`) in a zeroed and dumped window. */
async function producer(root, url, empty) {
  const require = createRequire(join(root, 'package.json'));
  const jobs = require(join(root, 'libs', 'jobs', 'dist', 'index.js'));
  const jobsRedis = require(join(root, 'libs', 'jobs-redis', 'dist', 'index.js'));
  const sh = promisify(exec);
  const backend = await jobsRedis.redisBackend({ url, prefix: `instr${process.pid}` });
  jobs.setJobsFacade(jobs.directJobsFacade({ driver: backend.driver }));
  const handle = jobs.job({
    name: 'instr.enqueue',
    queue: 'instr',
    input: jobs.t.object({ n: jobs.t.number, t: jobs.t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run: () => undefined,
  });
  for (let n = -WARMUP; n < CALLS; n++) {
    if (n === 0) {
      await sh(`callgrind_control -z ${process.pid}`);
      await sleep(GAP_MS);
    }
    if (!empty) await handle.enqueue({ n, t: n });
    await sleep(GAP_MS);
  }
  await sh(`callgrind_control -d measured ${process.pid}`);
  await backend.close();
  process.exit(0);
}

/** One valgrind'd producer; answers the instructions of its measured window. */
function counted(root, url, empty) {
  const dir = mkdtempSync(join(tmpdir(), 'enqueue-instr-'));
  const flags = process.env.BENCH_INSTR_JIT === '1' ? [] : ['--jitless'];
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', '--smc-check=all-non-file', `--callgrind-out-file=${dir}/cg.%p`].concat([
      process.execPath,
      ...flags,
      HERE,
      '--producer',
      root,
      url,
      empty ? 'empty' : 'full',
    ]),
    { stdio: 'ignore' },
  );
  return new Promise((resolvePromise, reject) => {
    child.once('exit', (code) => {
      const dump = readdirSync(dir).find((f) => f.endsWith('.1'));
      if (code !== 0 || dump === undefined) return reject(new Error(`producer exited ${code}`));
      const summary = /^summary: (\d+)/m.exec(readFileSync(join(dir, dump), 'utf8'));
      rmSync(dir, { recursive: true, force: true });
      resolvePromise(Number(summary[1]));
    });
  });
}

async function parent(checkouts) {
  const server = await startRedis();
  const k = (x) => `${(x / 1000).toFixed(1)}k`;
  console.log(
    `redis-enqueue-instructions: ${CALLS} handle.enqueue() ${GAP_MS} ms apart a pass, instructions a call`,
  );
  const harness = await Promise.all(checkouts.map(([, root]) => counted(root, server.url, true)));
  checkouts.forEach(([label], i) =>
    console.log(`  ${label.padEnd(8)} harness alone ${k(harness[i] / CALLS)}`),
  );
  for (let round = 1; round <= ROUNDS; round++) {
    const totals = await Promise.all(checkouts.map(([, root]) => counted(root, server.url, false)));
    const line = checkouts
      .map(
        ([label], i) =>
          `${label} ${k(totals[i] / CALLS)} (${k((totals[i] - harness[i]) / CALLS)} net)`,
      )
      .join('   ');
    console.log(`  round ${round}: ${line}`);
  }
  await server.stop();
}

const [mode, root, url, empty] = process.argv.slice(2);
if (mode === '--producer') await producer(root, url, empty === 'empty');
else {
  const args = process.argv.slice(2);
  const checkouts = args.length
    ? args.map((a) =>
        a.includes('=') ? [a.split('=')[0], resolve(a.split('=')[1])] : [a, resolve(a)],
      )
    : [['this', join(dirname(HERE), '..', '..')]];
  await parent(checkouts);
}
