#!/usr/bin/env node
/**
 * Where a Redis pickup's time goes, leg by leg, across processes as `bench:peers` measures it (a producer process, a
 * worker process at concurrency 10, one `redis-server`), at a trickle (BENCH_TRACE_JOBS jobs, default 200, 50 ms
 * apart). Every stamp is on one host clock (`performance.timeOrigin + performance.now()`):
 *
 *   enqueue → wake heard    just before `enqueue()` in the producer → the worker's subscriber hands it the queue
 *   wake → claim sent       → the worker's driver is asked for the claim that took the row
 *   claim round trip        → that claim answered
 *   reply → body            → the job's body starts
 *   total                   just before `enqueue()` → body start (the peers' pickup figure)
 *   (enqueue answered)      just before `enqueue()` → the producer's promise resolved, for reference
 *
 * and, interleaved with the jobs in the same processes, the floors of this machine: a bare `SPUBLISH` from the
 * producer heard by a bare subscriber in the worker process (what any wake by message costs), and a bare `EVALSHA`
 * of `return 1` the worker sends the moment it hears one (a round trip from a just-woken process: what a claim costs
 * at least). A pickup that claims after its wake is bounded below by their sum; a hand-off (the enqueue claiming for
 * an idle worker) by the first alone. A checkout with the hand-off (`jobWorker().handOff`) has the enqueue claim the
 * row for the idle worker and push it onto the list it blocks on: such a pickup is split as enqueue → pop answered and
 * pop → body instead, and the first further into what each side spends: enqueue() → the producer's first socket write
 * (its JavaScript before the script goes out), that write → the worker's socket hearing data (the wire, the server
 * and the worker waking: compare the bare SPUBLISH floor) and that data → pop answered (the client parsing the reply,
 * the driver decoding the rows). The socket stamps come from wrapping `net.Socket`'s `write` and `emit('data')` in
 * the child processes.
 *
 * Reads the checkout's TypeScript sources (like `redis-cost.mjs`), so it needs no build:
 *
 *   node scripts/bench/redis-pickup-trace.mjs [checkout]
 *
 * BENCH_TRACE_WARM=<n> first sends n untimed jobs 2 ms apart, so both processes run the path JIT-compiled, as a
 * long-lived app does (`bench:peers` warms its pickup so): the legs then read what a warm process pays after 50 ms idle.
 */
import { fork } from 'node:child_process';
import net from 'node:net';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedis } from './peers/redis.mjs';
import { loadCheckout } from './redis-checkout.mjs';

const HERE = fileURLToPath(import.meta.url);
const JOBS = Number(process.env.BENCH_TRACE_JOBS ?? 200);
const GAP_MS = 50;
const WARM = Number(process.env.BENCH_TRACE_WARM ?? 0);
const WARM_GAP_MS = 2;
/** The warm-up's job numbers count down from here, below every traced job's. */
const WARM_FROM = -1_000_000;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

const load = loadCheckout;

/** This process's socket traffic: when the first write since it was zeroed began, and when data last came in. */
const sockets = { firstWrite: 0, lastData: 0 };
function stampSockets() {
  const { write, emit } = net.Socket.prototype;
  net.Socket.prototype.write = function (...args) {
    if (sockets.firstWrite === 0) sockets.firstWrite = now();
    return write.apply(this, args);
  };
  net.Socket.prototype.emit = function (event, ...args) {
    if (event === 'data') sockets.lastData = now();
    return emit.call(this, event, ...args);
  };
}

/** The no-op job both sides declare: input `{ n, t }`, keyed by `n`. */
const declare = (jobs, run) =>
  jobs.job({
    name: 'trace.pickup',
    queue: 'trace',
    input: jobs.t.object({ n: jobs.t.number, t: jobs.t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run,
  });

/** The worker process: a real jobWorker whose driver's claims and wake are stamped, and a bare subscriber. */
async function worker(lib, url) {
  const backend = await lib.jobsRedis.redisBackend({ url, prefix: 'trace' });
  const stamps = new Map();
  let lastWake = 0;
  const driver = Object.create(backend.driver);
  const stamped =
    (claim) =>
    async (...args) => {
      const sent = now();
      const result = await claim(...args);
      const answered = now();
      const rows = Array.isArray(result) ? result : result.claimed;
      for (const row of rows) stamps.set(row.input.n, { wake: lastWake, sent, answered });
      return result;
    };
  driver.claim = stamped(backend.driver.claim.bind(backend.driver));
  if (backend.driver.claimRescuing)
    driver.claimRescuing = stamped(backend.driver.claimRescuing.bind(backend.driver));
  const registry = new lib.jobs.JobRegistry();
  registry.register(
    declare(lib.jobs, ({ input }) => {
      const s = stamps.get(input.n);
      if (s) s.body = now();
    }),
  );
  const running = lib.jobs.jobWorker({ driver, registry, concurrency: 10 });
  // a checkout with the hand-off: rows the enqueue claimed for this worker are stamped when its pop answers them
  const own = running.handOff;
  const handOff = own && {
    ...own,
    takeClaimed: (rows) => {
      const handed = now();
      for (const row of rows) stamps.set(row.input.n, { handed, data: sockets.lastData });
      own.takeClaimed(rows);
    },
  };
  const wake = backend.startWake({
    signalEnqueued: (queue, after) => {
      lastWake = now();
      running.signalEnqueued(queue, after);
    },
    setWakeLive: (live) => running.setWakeLive(live),
    ...(handOff ? { handOff } : {}),
  });
  while (!backend.driver.wake.live) await sleep(5);
  await running.start();
  // the floors: a bare subscriber, and a bare round trip sent the moment a message is heard
  const bare = new lib.IORedis(url);
  const sub = new lib.IORedis(url);
  const sha = await bare.script('LOAD', 'return 1');
  const floors = [];
  sub.on('smessage', (_channel, message) => {
    const heard = now();
    void bare
      .evalsha(sha, 0)
      .then(() => floors.push({ sent: Number(message), heard, back: now() }));
  });
  await sub.ssubscribe('{trace}:bare');
  process.send({ ready: true });
  process.on('message', async (message) => {
    if (message !== 'collect') return;
    await running.stop();
    await wake.stop();
    await backend.close();
    sub.disconnect();
    bare.disconnect();
    // the warm-up's jobs are not sent; exit once the message is out (a send is asynchronous)
    const traced = [...stamps].filter(([n]) => n > WARM_FROM);
    process.send({ stamps: traced, floors }, () => process.exit(0));
  });
}

/** The producer process: one job enqueued, then one bare message published, each GAP_MS / 2 apart. */
async function producer(lib, url) {
  const backend = await lib.jobsRedis.redisBackend({ url, prefix: 'trace' });
  lib.jobs.setJobsFacade(lib.jobs.directJobsFacade({ driver: backend.driver }));
  const handle = declare(lib.jobs, () => undefined);
  const bare = new lib.IORedis(url);
  const answered = new Map();
  for (let i = 0; i < WARM; i++) {
    await handle.enqueue({ n: WARM_FROM - i, t: now() });
    await sleep(WARM_GAP_MS);
  }
  for (let n = -20; n < JOBS; n++) {
    const t = now();
    sockets.firstWrite = 0;
    await handle.enqueue({ n, t });
    answered.set(n, { t, back: now(), wrote: sockets.firstWrite });
    await sleep(GAP_MS / 2 - (now() - t));
    const p = now();
    await bare.spublish('{trace}:bare', String(p));
    await sleep(GAP_MS / 2 - (now() - p));
  }
  await sleep(200);
  bare.disconnect();
  await backend.close();
  process.send({ answered: [...answered] }, () => process.exit(0));
}

function spawn(mode, root, url) {
  const child = fork(HERE, [`--${mode}`, root, url], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const messages = [];
  let waiting;
  child.on('message', (m) => (waiting ? (waiting(m), (waiting = undefined)) : messages.push(m)));
  return {
    child,
    next: () =>
      messages.length ? Promise.resolve(messages.shift()) : new Promise((r) => (waiting = r)),
  };
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))];
};
const row = (label, xs) =>
  xs.length === 0
    ? undefined
    : console.log(
        `  ${label.padEnd(34)} ${pct(xs, 0.5).toFixed(2).padStart(7)} ${pct(xs, 0.99).toFixed(2).padStart(7)}  (${xs.length})`,
      );

async function parent(root) {
  const server = await startRedis();
  console.log(
    `redis-pickup-trace: ${root}; load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const w = spawn('worker', root, server.url);
  await w.next();
  const p = spawn('producer', root, server.url);
  const { answered } = await p.next();
  w.child.send('collect');
  const { stamps, floors } = await w.next();
  await server.stop();
  const sent = new Map(answered);
  const legs = { wake: [], claimSent: [], claimTrip: [], body: [], total: [], answered: [] };
  const handed = { pop: [], js: [], wire: [], parse: [], body: [] };
  for (const [n, s] of stamps) {
    const a = sent.get(n);
    if (n < 0 || !a || s.body === undefined) continue;
    legs.total.push(s.body - a.t);
    legs.answered.push(a.back - a.t);
    if (s.handed !== undefined) {
      handed.pop.push(s.handed - a.t);
      handed.js.push(a.wrote - a.t);
      handed.wire.push(s.data - a.wrote);
      handed.parse.push(s.handed - s.data);
      handed.body.push(s.body - s.handed);
      continue;
    }
    legs.wake.push(s.wake - a.t);
    legs.claimSent.push(s.sent - s.wake);
    legs.claimTrip.push(s.answered - s.sent);
    legs.body.push(s.body - s.answered);
  }
  const warm = floors.slice(20);
  console.log(`\n  ${legs.total.length} pickups, ${GAP_MS} ms apart           p50 ms  p99 ms`);
  row('enqueue -> wake heard', legs.wake);
  row('wake -> claim sent', legs.claimSent);
  row('claim round trip', legs.claimTrip);
  row('reply -> body', legs.body);
  row('handed: enqueue -> pop answered', handed.pop);
  row('  enqueue() -> first write', handed.js);
  row('  write -> worker hears data', handed.wire);
  row('  data -> pop answered', handed.parse);
  row('handed: pop -> body', handed.body);
  row('total (the pickup)', legs.total);
  row('(enqueue answered)', legs.answered);
  row(
    'floor: bare SPUBLISH -> heard',
    warm.map((f) => f.heard - f.sent),
  );
  row(
    'floor: round trip on waking',
    warm.map((f) => f.back - f.heard),
  );
  row(
    'floor: both (claim after a wake)',
    warm.map((f) => f.back - f.sent),
  );
  console.log(
    `load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

const [mode, root, url] = process.argv.slice(2);
if (mode === '--worker') (stampSockets(), await worker(load(root), url));
else if (mode === '--producer') (stampSockets(), await producer(load(root), url));
else await parent(resolve(mode ?? join(dirname(HERE), '..', '..')));
