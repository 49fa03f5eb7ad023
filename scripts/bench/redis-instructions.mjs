#!/usr/bin/env node
/**
 * The instructions `redis-server` executes for the Redis driver's hot scripts, counted by valgrind's callgrind: a
 * serial enqueue (`driver.enqueue`, each awaited), a claim (`driver.claim`, 100 rows a call) and an ack
 * (`driver.ackMany`, 100 rows a call), each per row, and a handed enqueue (`driver.enqueue` of a row due now into a queue
 * where an idle worker is registered for the hand-off, so the script claims the row for it and pushes it onto its list;
 * the worker is a registration alone, nobody pops). Unlike CPU time these counts barely move with the machine's load
 * (±2% between runs on a box at load 10), so a change of a few per cent in a script shows up where `redis-cost.mjs`'s
 * CPU figures cannot tell it from noise. The server runs under callgrind (about 50× slower), so the passes are small.
 *
 *   node scripts/bench/redis-instructions.mjs                        # this checkout
 *   node scripts/bench/redis-instructions.mjs old=/tmp/wt-old new=.  # A/B, one after the other
 *
 * BENCH_INSTR_ROWS (default 2,000) rows per pass. Needs `valgrind` (with `callgrind_control`) and `redis-server` on
 * PATH; reads the TypeScript sources (no build needed).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCheckout } from './redis-checkout.mjs';
import { enqueueRequest } from './requests.mjs';

const HERE = fileURLToPath(import.meta.url);
const ROOT = join(dirname(HERE), '..', '..');
const ROWS = Number(process.env.BENCH_INSTR_ROWS ?? 2_000);

/** Starts `redis-server` under callgrind on a free port; answers its url, pid, dump directory and stop. */
async function startCounted(IORedis) {
  const dir = mkdtempSync(join(tmpdir(), 'redis-instr-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const server = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${dir}/cg.%p`,
      'redis-server',
      '--port',
      String(port),
    ].concat(['--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction']),
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  for (;;) {
    const probe = new IORedis(url, { lazyConnect: true, retryStrategy: () => null });
    probe.on('error', () => {});
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      break;
    } catch {
      probe.disconnect();
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  const stop = async () => {
    server.kill('SIGTERM');
    await new Promise((r) => server.on('exit', r));
  };
  return { url, pid: server.pid, dir, stop };
}

/** The instructions of each named dump callgrind wrote into `dir`. */
function dumps(dir) {
  const out = {};
  for (const f of readdirSync(dir)) {
    const text = readFileSync(join(dir, f), 'utf8');
    const name = /^desc: Trigger: dump (\w+)/m.exec(text)?.[1];
    const total = /^(?:summary|totals): (\d+)/m.exec(text)?.[1];
    if (name && total) out[name] = Number(total);
  }
  return out;
}

async function child(root) {
  const lib = loadCheckout(root);
  const server = await startCounted(lib.IORedis);
  const dump = (name) =>
    execFileSync('callgrind_control', ['-d', name, String(server.pid)], { stdio: 'ignore' });
  const backend = await lib.jobsRedis.redisBackend({ url: server.url, prefix: 'instr' });
  const { driver } = backend;
  let seq = 0;
  const request = (queue) => {
    const n = seq++;
    return enqueueRequest(lib.jobs.uuidv7, {
      name: `instr.${queue}`,
      queue,
      input: { n, t: 0 },
      idempotencyKey: `n:${n}`,
    });
  };
  const claimAll = async (queue, into) => {
    const slots = [{ queue, limit: 100 }];
    for (;;) {
      const rows = await driver.claim({ workerId: 'instr', visibilityTimeoutMs: 60_000, slots });
      if (rows.length === 0) return;
      into.push(...rows);
    }
  };
  const ackAll = async (rows) => {
    for (let i = 0; i < rows.length; i += 100)
      await driver.ackMany(
        rows.slice(i, i + 100).map((r) => ({ jobId: r.id, ...lib.jobs.claimOf(r), durationMs: 1 })),
      );
  };
  // an idle worker registered for the hand-off on queue 'handed' with room for every row (as redis-hand-off.ts writes it)
  const handedQ = `{instr}:q:6:handed`;
  const register = async (client) => {
    await client.set(`${handedQ}:ho:ghost`, `${ROWS + 100}|60000|*`, 'PX', 600_000);
    await client.zadd(`${handedQ}:ho`, 0, 'ghost');
  };
  const plain = new lib.IORedis(server.url);
  try {
    // every script loaded and every key in place first: a script's first call compiles it
    for (let i = 0; i < 200; i++) await driver.enqueue(request('serial'));
    await driver.enqueueMany(Array.from({ length: 10 }, () => request('warm')));
    const warm = [];
    await claimAll('warm', warm);
    await ackAll(warm);
    await driver.enqueueMany(Array.from({ length: ROWS }, () => request('drain')));
    await register(plain);
    for (let i = 0; i < 20; i++) await driver.enqueue(request('handed'));
    await register(plain);
    dump('setup');
    for (let i = 0; i < ROWS; i++) await driver.enqueue(request('serial'));
    dump('serial');
    const claimed = [];
    await claimAll('drain', claimed);
    dump('claim');
    await ackAll(claimed);
    dump('ack');
    for (let i = 0; i < ROWS; i++) await driver.enqueue(request('handed'));
    dump('handed');
    const handed = await plain.llen('{instr}:hl:ghost');
    if (handed !== ROWS + 20) throw new Error(`handed ${handed} of ${ROWS + 20}`);
    if (claimed.length !== ROWS) throw new Error(`claimed ${claimed.length} of ${ROWS}`);
  } finally {
    plain.disconnect();
    await backend.close();
    await server.stop();
  }
  const counts = dumps(server.dir);
  rmSync(server.dir, { recursive: true, force: true });
  const per = (name) => Math.round(counts[name] / ROWS);
  process.stdout.write(
    `${JSON.stringify({ serial: per('serial'), claim: per('claim'), ack: per('ack'), handed: per('handed') })}\n`,
  );
}

function parent(variants) {
  console.log(
    `server instructions per row (callgrind; ${ROWS.toLocaleString('en-US')} rows a pass)`,
  );
  console.log('  checkout  serial enqueue      claim        ack    handed enqueue');
  for (const [name, root] of variants) {
    const out = execFileSync(process.execPath, [HERE, '--child', root], {
      encoding: 'utf8',
      env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') },
    });
    const r = JSON.parse(out.trim().split('\n').pop());
    const n = (v) => v.toLocaleString('en-US').padStart(10);
    console.log(
      `  ${name.padEnd(8)}  ${n(r.serial)}     ${n(r.claim)} ${n(r.ack)}        ${n(r.handed)}`,
    );
  }
}

const args = process.argv.slice(2);
if (args[0] === '--child') await child(resolve(args[1]));
else {
  const variants = args.length === 0 ? [['this', ROOT]] : args.map((a) => a.split('='));
  parent(variants.map(([name, root]) => [name, resolve(root)]));
}
