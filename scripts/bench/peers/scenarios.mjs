/**
 * The scenarios every peer runs, ours included, through its adapter (`<peer>.mjs`: `label`, `store`, `prepare`,
 * `producer`, `worker`, `outstanding`). A job's wait is measured from just before `enqueue()` in a producer process to
 * its body's start in the worker process, on one host clock (`performance.timeOrigin + performance.now()`).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnChild as spawnChildAt } from '../fork-child.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const spawnChild = (script, args) => spawnChildAt(join(HERE, script), args);

/** The sizes of the bulk / drain and serial scenarios, shared by `bench:peers` and `npm run bench`'s Redis section. */
export const DRAIN_JOBS = 50_000;
export const SERIAL_JOBS = 2_000;
/**
 * The jobs that must finish before a burst of 1,000's p99 job (its 990th) can start in a worker at concurrency 10:
 * 980. At a worker's drain rate that is the least the burst's p99 can be even were every enqueue committed at once.
 */
export const BURST_P99_AHEAD = 980;
/**
 * The untimed calls a process makes before its timed ones, in the serial row and on each producer of the pickup's (its
 * jobs 4 ms apart, 1,000/s from the four, one at a time at the worker): a fresh process runs its first few thousand
 * calls in V8's interpreter and baseline tiers, at 1.5-2.5x a warm call's time (a client library for ~2,500 of them:
 * ioredis), which is a process's first seconds, not the long-lived app the figures stand for. Every peer gets the same.
 * 1,000 a producer (the pickup's count before 2026-12-03 12:30 UTC) left the path short of warm: interleaved in
 * `node scripts/bench/redis-pickup-trace.mjs`, five pairs, ours on Redis read pickup p50 0.80-1.02 ms after
 * `BENCH_TRACE_WARM=1000` and 0.57-0.99 after 3000 (enqueue() to its first socket write 0.18-0.23 against 0.09-0.16).
 */
export const WARM_CALLS = 3_000;

export const spawnWorker = (peer, context, queue, mode = 'serve', expected = 0) =>
  spawnChild('worker-child.mjs', [peer, JSON.stringify(context), queue, mode, String(expected)]);

const spawnProducer = (peer, context) =>
  spawnChild('producer-child.mjs', [peer, JSON.stringify(context)]);

/** Waits until `worker` saw `expected` bodies (or `timeoutMs` passed); answers their latencies and its memory. */
async function collect(worker, expected, timeoutMs) {
  const deadline = now() + timeoutMs;
  while (now() < deadline && (await worker.ask({ type: 'peek' })).count < expected) await sleep(50);
  const { latencies, memory } = await worker.ask({ type: 'collect' });
  if (latencies.length < expected)
    console.log(
      `    (only ${latencies.length} of ${expected} jobs started within ${timeoutMs} ms)`,
    );
  return { latencies, memory };
}

let base = 0;

/**
 * `producers` each enqueue `count` jobs `intervalMs` apart, staggered evenly, from a common start. Answers how late the
 * latest call went out (ms) and every call's wait until its enqueue was acknowledged (ms).
 */
async function arrive(producers, count, intervalMs) {
  const startAt = now() + 200;
  const runs = producers.map((producer, k) => {
    base += 1_000_000;
    return producer.ask({
      type: 'run',
      queue: 'pickup',
      count,
      intervalMs,
      startAt: startAt + (k * intervalMs) / producers.length,
      base,
    });
  });
  const answers = await Promise.all(runs);
  return {
    lateMs: Math.max(...answers.map((a) => a.lateMs)),
    acked: answers.flatMap((a) => a.acked),
  };
}

/**
 * Pickup under arrival, one worker process, producers in other processes: 200 jobs 50 ms apart from one producer;
 * 2,000 jobs at 500/s from four; 1,000 enqueue() calls at once from one. Answers each scenario's latencies (ms) from
 * just before `enqueue()` to the body's start, each call's wait until its enqueue was acknowledged (`acked`), how late
 * the producers ran, and the worker's memory at the end. A peer without bodies (`bodies: false`, the PostgreSQL floor)
 * has its acknowledgements for latencies: its worker process runs nothing.
 */
export async function pickupScenarios(peer, context, { bodies = true } = {}) {
  const worker = await spawnWorker(peer, context, 'pickup');
  const producers = await Promise.all([0, 1, 2, 3].map(() => spawnProducer(peer, context)));
  const bodiesOf = async (expected, arrived, timeoutMs = 15_000) =>
    bodies ? collect(worker, expected, timeoutMs) : { latencies: arrived.acked, memory: undefined };
  try {
    // a long-lived app's producer and worker: every connection open and the path JIT-compiled on both sides
    const warm = await arrive(producers, WARM_CALLS, 4);
    await bodiesOf(WARM_CALLS * producers.length, warm, 60_000);
    await sleep(500);
    const result = {};
    const late = {};
    const acked = {};
    const scenarios = [
      ['steady', producers.slice(0, 1), 200, 50],
      ['rate500', producers, 500, 8],
      ['burst', producers.slice(0, 1), 1_000, 0],
    ];
    let memory;
    for (const [name, by, count, intervalMs] of scenarios) {
      if (name !== 'steady') await sleep(500);
      const arrived = await arrive(by, count, intervalMs);
      late[name] = arrived.lateMs;
      acked[name] = arrived.acked;
      const seen = await bodiesOf(count * by.length, arrived);
      result[name] = seen.latencies;
      memory = seen.memory;
    }
    return { ...result, acked, late, memory };
  } finally {
    await Promise.all([worker, ...producers].map((child) => child.stop()));
  }
}

/** Rows a second of `batches` batches of 1,000 `enqueueBatch` calls into `queue`, one after another. */
export async function bulkEnqueue(producer, queue, batches) {
  const rows = Array.from({ length: batches }, (_, b) =>
    Array.from({ length: 1_000 }, (_, i) => ({ n: 10_000_000 + b * 1_000 + i, t: 0 })),
  );
  const started = now();
  for (const batch of rows) await producer.enqueueBatch(queue, batch);
  return (batches * 1_000 * 1_000) / (now() - started);
}

/**
 * Enqueues a second of `total` `enqueue()` calls into `queue`, each awaited before the next — after `warm` untimed
 * ones, so every peer is measured as a long-lived app meets it (JIT-compiled, pools and scripts loaded), not in its
 * process's first few thousand calls, which cost several times a warm call for every peer alike (ioredis for ~2,500).
 */
export async function serialEnqueue(producer, queue, total, warm = WARM_CALLS) {
  for (let i = 0; i < warm; i++) await producer.enqueue(queue, { n: 30_000_000 + i, t: 0 });
  const started = now();
  for (let i = 0; i < total; i++) await producer.enqueue(queue, { n: 20_000_000 + i, t: 0 });
  return (total * 1_000) / (now() - started);
}

/**
 * Drains the `total` jobs waiting in `queue` with one worker process at concurrency 10: jobs a second from the first
 * body's start until every job is finished in the store (`outstanding` is 0), so a peer that defers its acks pays
 * for them. Start-up (connecting, migrations check) is left out for every peer alike. The end is the moment the count
 * that found nothing outstanding was sent (its snapshot), not its answer: the count is the bench's own statement, and
 * over a table that keeps its finished rows it is a scan of all of them (~12 ms for ours after a drain of 50,000),
 * which a peer that deletes them pays less for. Answers the rate, when the first body and every 1,000th started
 * (`first`, `marks`: the worker's clock, `performance.timeOrigin + performance.now()`), and the worker's memory once
 * the drain is done.
 */
export async function drain(peer, adapter, context, queue, total, sql) {
  const worker = await spawnWorker(peer, context, queue, 'drain', total);
  try {
    const { first, marks, memory } = await worker.ask({ type: 'go' });
    let finished = now();
    while ((await adapter.outstanding(context, queue, sql)) > 0) {
      await sleep(5);
      finished = now();
    }
    return { perSecond: ((total - 1) * 1_000) / (finished - first), first, marks, memory };
  } finally {
    await worker.stop();
    await adapter.release?.(context);
  }
}
