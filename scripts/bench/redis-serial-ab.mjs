#!/usr/bin/env node
/**
 * A paired A/B of the serial enqueue on Redis: two checkouts' backends on ONE `redis-server` in ONE process, each
 * `handle.enqueue()` awaited before the next, in alternating blocks (A B, then B A, …) so the machine's load falls on
 * both sides alike — on a shared 2-core box, separate runs of `redis-cost.mjs` minutes apart can differ by more than
 * the change measured. Per enqueue, the medians over the blocks of: the server's CPU (`INFO cpu`), the time inside the
 * script (`INFO commandstats`, EVALSHA usec per call), the client process's CPU (`process.cpuUsage()`, both sides'
 * code share it, each block counted apart) and the wall time.
 *
 *   node scripts/bench/redis-serial-ab.mjs old=/tmp/wt-old new=.
 *
 * Each side writes under its own prefix; both are warmed first (BENCH_AB_WARM enqueues each, default 3,000: a
 * process's client path costs several times its warm cost until then). BENCH_AB_BLOCKS (default 16) blocks of
 * BENCH_AB_BLOCK (default 500) enqueues a side. Reads the TypeScript sources (no build needed).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadCheckout } from './redis-checkout.mjs';

const BLOCK = Number(process.env.BENCH_AB_BLOCK ?? 500);
const BLOCKS = Number(process.env.BENCH_AB_BLOCKS ?? 16);
const WARM = Number(process.env.BENCH_AB_WARM ?? 3_000);

/** A throwaway `redis-server` on a free-ish port, nothing persisted; answers its url and stop. */
async function startServer() {
  const port = 30_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((done, fail) => {
    let seen = '';
    child.stdout.on('data', (chunk) => {
      seen += chunk;
      if (seen.includes('Ready to accept connections')) done();
    });
    child.once('exit', (code) => fail(new Error(`redis-server exited with ${code}: ${seen}`)));
  });
  child.stdout.resume();
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

/** The server's CPU µs so far, and its EVALSHA calls and usec. */
async function counters(admin) {
  const text = await admin.info('all');
  let cpu = 0;
  for (const m of text.matchAll(/^used_cpu_(?:user|sys):([\d.]+)/gm)) cpu += Number(m[1]);
  const m = /^cmdstat_evalsha:calls=(\d+),usec=(\d+)/m.exec(text);
  return { cpu: cpu * 1e6, calls: Number(m?.[1] ?? 0), usec: Number(m?.[2] ?? 0) };
}

/** One side: its checkout's backend on `prefix`, and a no-op job's handle enqueued through its own facade. */
async function side(name, root, url, prefix) {
  const lib = loadCheckout(root);
  const backend = await lib.jobsRedis.redisBackend({ url, prefix });
  const facade = lib.jobs.directJobsFacade({ driver: backend.driver });
  const handle = lib.jobs.job({
    name: 'ab.serial',
    queue: 'serial',
    input: lib.jobs.t.object({ n: lib.jobs.t.number, t: lib.jobs.t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run: () => undefined,
  });
  return { name, root, lib, backend, facade, handle, blocks: [] };
}

let seq = 0;

/** `count` serial enqueues on side `s`; its costs per enqueue are kept when `record`. */
async function block(admin, s, count, record) {
  s.lib.jobs.setJobsFacade(s.facade);
  const before = await counters(admin);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < count; i++) await s.handle.enqueue({ n: seq++, t: 0 });
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const after = await counters(admin);
  if (!record) return;
  s.blocks.push({
    server: (after.cpu - before.cpu) / count,
    script: (after.usec - before.usec) / (after.calls - before.calls),
    client: (used.user + used.system) / count,
    wall: (wall * 1_000) / count,
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const variants = process.argv.slice(2).map((arg) => arg.split('='));
if (variants.length !== 2 || variants.some((v) => v.length !== 2)) {
  console.error(
    'usage: node scripts/bench/redis-serial-ab.mjs <name>=<checkout> <name>=<checkout>',
  );
  process.exit(2);
}
const server = await startServer();
const { IORedis } = loadCheckout(resolve(variants[0][1]));
const admin = new IORedis(server.url);
const sides = [
  await side(variants[0][0], resolve(variants[0][1]), server.url, 'ab0'),
  await side(variants[1][0], resolve(variants[1][1]), server.url, 'ab1'),
];
try {
  console.log(`load average ${readFileSync('/proc/loadavg', 'utf8').trim()} at start`);
  for (const s of sides) await block(admin, s, WARM, false);
  for (let i = 0; i < BLOCKS; i++)
    for (const s of i % 2 === 0 ? sides : [...sides].reverse()) await block(admin, s, BLOCK, true);
  console.log(
    `per enqueue, medians of ${BLOCKS} alternating blocks of ${BLOCK} (load ${readFileSync('/proc/loadavg', 'utf8').trim()})`,
  );
  console.log('  checkout  Redis CPU µs  script µs  client CPU µs  wall µs  enqueues/s');
  for (const s of sides) {
    const m = (key) => median(s.blocks.map((b) => b[key]));
    console.log(
      `  ${s.name.padEnd(8)}  ${m('server').toFixed(1).padStart(12)}  ${m('script').toFixed(1).padStart(9)}  ${m('client').toFixed(1).padStart(13)}  ${m('wall').toFixed(1).padStart(7)}  ${(1e6 / m('wall')).toFixed(0).padStart(10)}`,
    );
  }
} finally {
  for (const s of sides) await s.backend.close();
  admin.disconnect();
  server.stop();
}
