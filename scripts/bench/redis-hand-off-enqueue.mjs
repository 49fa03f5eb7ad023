#!/usr/bin/env node
/**
 * Why the enqueuer hears back later when a worker is registered for the hand-off: the producer's `handle.enqueue()`
 * round trip (as `bench:peers`' pickup producer sends it, 50 ms apart) in three modes interleaved in blocks of 50, each
 * with the server time per enqueue script (INFO commandstats, EVALSHA usec per call):
 *
 *   no registration               the row is announced and waits (its due set is emptied after each, so the next
 *                                 finds nothing ahead as in a trickle)
 *   registered, popped elsewhere  a registration with room, whose list another process pops and re-registers after
 *                                 each pop (a bare `SET PX` + `ZADD` + `BLPOP` loop: no worker, no job body)
 *   registered, never popped      the same registration, nobody blocked on the list (the hand-off's script work
 *                                 alone, no process woken)
 *
 * Reads this checkout's TypeScript sources (like `redis-pickup-trace.mjs`); starts its own redis-server.
 *
 *   node scripts/bench/redis-hand-off-enqueue.mjs
 */
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedis } from './peers/redis.mjs';
import { loadCheckout } from './redis-checkout.mjs';

const HERE = fileURLToPath(import.meta.url);
const ROOT = join(dirname(HERE), '..', '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const REG = '{e}:q:1:e:ho:ghost';
const SET = '{e}:q:1:e:ho';
const LIST = '{e}:hl:ghost';
const DUE = '{e}:q:1:e:r:e.j';

/** The other process: while on, registers and pops, over and over. */
async function popper(url) {
  const { IORedis } = loadCheckout(ROOT);
  const c = new IORedis(url);
  const ctl = new IORedis(url);
  let on = false;
  process.on('message', async (m) => {
    if (m === 'exit') process.exit(0);
    on = m === 'on';
    if (!on) {
      await ctl.del(REG);
      await ctl.zrem(SET, 'ghost');
      await ctl.rpush(LIST, 'stop');
    }
    process.send('ok');
  });
  // a message sent before this process listens would be lost: the parent waits for this one first
  process.send('ready');
  for (;;) {
    if (!on) {
      await sleep(5);
      continue;
    }
    await c.set(REG, '1000000|30000|*', 'PX', 75000);
    await c.zadd(SET, 0, 'ghost');
    await c.blpop(LIST, 60);
  }
}

async function main() {
  const redis = await startRedis();
  const lib = loadCheckout(ROOT);
  const backend = await lib.jobsRedis.redisBackend({ url: redis.url, prefix: 'e' });
  lib.jobs.setJobsFacade(lib.jobs.directJobsFacade({ driver: backend.driver }));
  const { job, t } = lib.jobs;
  const handle = job({
    name: 'e.j',
    queue: 'e',
    input: t.object({ n: t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run: () => undefined,
  });
  const other = fork(HERE, ['--popper', redis.url], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise((r) => other.once('message', r));
  const tell = (m) => new Promise((r) => (other.once('message', r), other.send(m)));
  const plain = new lib.IORedis(redis.url);
  const modes = ['no registration', 'registered, popped elsewhere', 'registered, never popped'];
  const ms = new Map(modes.map((m) => [m, []]));
  const usec = new Map(modes.map((m) => [m, []]));
  let n = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of modes) {
      await tell(mode === modes[1] ? 'on' : 'off');
      if (mode === modes[2]) {
        await plain.set(REG, '1000000|30000|*', 'PX', 75000);
        await plain.zadd(SET, 0, 'ghost');
      }
      await sleep(50);
      await plain.call('CONFIG', 'RESETSTAT');
      for (let i = 0; i < 50; i++) {
        const at = now();
        await handle.enqueue({ n: n++ });
        ms.get(mode).push(now() - at);
        if (mode === modes[0]) await plain.del(DUE);
        if (mode === modes[2]) await plain.del(LIST);
        await sleep(50);
      }
      const stat = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(
        String(await plain.call('INFO', 'commandstats')),
      );
      if (stat) usec.get(mode).push(Number(stat[2]) / Number(stat[1]));
    }
  }
  const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)];
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(
    `redis-hand-off-enqueue: load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  for (const mode of modes) {
    const xs = ms.get(mode);
    console.log(
      `  ${mode.padEnd(30)} enqueue answered p50 ${pct(xs, 0.5).toFixed(2)} ms, p90 ${pct(xs, 0.9).toFixed(2)} ms` +
        ` (${xs.length}); server ${mean(usec.get(mode)).toFixed(1)} µs a script`,
    );
  }
  // the popper exits on 'exit' without answering it
  other.send('exit');
  other.kill();
  plain.disconnect();
  await backend.close();
  await redis.stop?.();
  process.exit(0);
}

if (process.argv[2] === '--popper') await popper(process.argv[3]);
else await main();
