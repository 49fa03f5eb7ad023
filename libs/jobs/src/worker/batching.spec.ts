import { job } from '../declare/job';
import type { AckManyItem, JobDriver } from '../driver/job-driver';
import { claimOf, type ClaimedJob } from '../driver/job-row';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { uuidv7 } from '../util/ids';
import { ackBatcher } from './ack-batcher';
import { PREFETCH_HORIZON_MS, prefetchBuffer } from './prefetch';
import { enqueueRequest } from '../../test/requests';

const input = t.object({ n: t.number });

/** A memory driver whose `ackMany` calls wait until the test releases them, recording each batch. */
function gatedAcks(clock = frozenClock()) {
  const inner = memoryJobDriver({ clock });
  const batches: string[][] = [];
  const waiting: (() => void)[] = [];
  const driver: JobDriver = {
    ...inner,
    ackMany: (items: readonly AckManyItem[]) => {
      batches.push(items.map((i) => i.jobId));
      return new Promise((resolve) => waiting.push(() => resolve(inner.ackMany!(items))));
    },
  };
  const releaseAll = async (): Promise<void> => {
    while (waiting.length > 0) {
      waiting.shift()?.();
      await clock.flush();
    }
  };
  return { clock, inner, driver, batches, waiting, releaseAll };
}

const request = (clock: { now(): number }, n: number, queue = 'q') =>
  enqueueRequest({
    id: uuidv7(clock.now() + n),
    name: 'batch.job',
    queue,
    input: { n },
    idempotencyKey: `n:${n}`,
    runAt: clock.now(),
  });

describe('ackBatcher', () => {
  it('sends a lone ack at once, and the acks arriving while two batches are out as one, each fenced', async () => {
    const g = gatedAcks();
    for (let n = 0; n < 6; n++) await g.inner.enqueue(request(g.clock, n));
    const rows = await g.inner.claim({
      workerId: 'w',
      slots: [{ queue: 'q', limit: 6 }],
      visibilityTimeoutMs: 30_000,
    });
    const acks = ackBatcher(g.driver);
    const first = acks.ack(rows[0]!.id, claimOf(rows[0]!));
    expect(g.batches).toEqual([[rows[0]!.id]]); // not delayed to a later tick
    const rest = rows
      .slice(1)
      .map((row, i) =>
        acks.ack(row.id, i === 2 ? { workerId: 'w', claim: uuidv7() } : claimOf(row)),
      );
    expect(g.batches).toHaveLength(2);
    expect(acks.pending()).toBe(6);
    await g.releaseAll();
    expect(g.batches.map((b) => b.length)).toEqual([1, 1, 4]);
    expect(await Promise.all([first, ...rest])).toEqual([true, true, true, false, true, true]);
    expect(acks.pending()).toBe(0);
  });

  it('rejects every ack of a batch whose statement failed', async () => {
    const inner = memoryJobDriver();
    const acks = ackBatcher({ ...inner, ackMany: () => Promise.reject(new Error('down')) });
    await expect(acks.ack(uuidv7(), { workerId: 'w', claim: uuidv7() })).rejects.toThrow('down');
  });

  it('acks one by one through a driver without ackMany', async () => {
    const inner = memoryJobDriver();
    const calls: string[] = [];
    const { ackMany: _none, ...rest } = inner;
    const driver: JobDriver = {
      ...rest,
      ack: (jobId, options) => {
        calls.push(jobId);
        return inner.ack(jobId, options);
      },
    };
    const acks = ackBatcher(driver);
    const ids = [uuidv7(), uuidv7()];
    await Promise.all(ids.map((id) => acks.ack(id, { workerId: 'w', claim: uuidv7() })));
    expect(calls).toEqual(ids);
  });
});

describe('prefetchBuffer', () => {
  const claimed = (n: number): ClaimedJob => ({
    id: uuidv7(n),
    runId: uuidv7(n),
    name: 'batch.job',
    queue: 'q',
    input: { n },
    idempotencyKey: `n:${n}`,
    tenantId: null,
    enqueuedBy: null,
    state: 'running',
    attempt: 1,
    maxAttempts: 3,
    priority: 0,
    runAt: 0,
    createdAt: 0,
    updatedAt: 0,
    workerId: 'w',
    claim: uuidv7(n),
    leaseExpiresAt: 30_000,
    lastError: null,
    progress: null,
    concurrencyKey: null,
    traceparent: null,
    finishedAt: null,
  });

  it('targets nothing until a completion rate is measured, then the rows that start within the horizon', () => {
    const b = prefetchBuffer(10_000);
    expect(b.target('q', 0, 100)).toBe(0);
    for (let i = 0; i < 200; i++) b.completed('q');
    expect(b.target('q', 50, 100)).toBe(0); // the window is not over, and 100 slots turned over twice at most
    // 200 runs in 100 ms: 2 a ms, so 2 × the horizon
    expect(b.target('q', 100, 100)).toBe(2 * PREFETCH_HORIZON_MS);
    // a long quiet spell starts over from what it measured: nothing
    expect(b.target('q', 100 + 60_000, 100)).toBe(0);
  });

  it('takes a rate rising within its window at once, once every slot turned over three times', () => {
    const b = prefetchBuffer(10_000);
    expect(b.target('q', 0, 10)).toBe(0);
    // a burst after the quiet spell: 29 runs of 10 slots in 20 ms are not three turnovers of each slot yet
    for (let i = 0; i < 29; i++) b.completed('q');
    expect(b.target('q', 20, 10)).toBe(0);
    b.completed('q');
    // 30 runs in 20 ms: 1.5 a ms, taken before the window's end
    expect(b.target('q', 20, 10)).toBe(Math.floor(1.5 * PREFETCH_HORIZON_MS));
    // a window shorter than 10 ms measures nothing early, however many runs ended in it
    const c = prefetchBuffer(10_000);
    c.target('q', 0, 10);
    for (let i = 0; i < 100; i++) c.completed('q');
    expect(c.target('q', 9, 10)).toBe(0);
  });

  it('does not take ten slow runs ending together for a rate', () => {
    const b = prefetchBuffer(10_000);
    b.target('q', 0, 10);
    for (let i = 0; i < 10; i++) b.completed('q');
    expect(b.target('q', 15, 10)).toBe(0);
    expect(b.target('q', 60, 10)).toBe(0);
  });

  it('keeps an early rate when it falls back within the window, and averages it at the window end', () => {
    const b = prefetchBuffer(10_000);
    b.target('q', 0, 10);
    for (let i = 0; i < 40; i++) b.completed('q');
    expect(b.target('q', 10, 10)).toBe(4 * PREFETCH_HORIZON_MS); // 40 runs in 10 ms
    // nothing more ends: the rate measured at 50 ms (0.8 a ms) is lower and not taken before the window ends
    expect(b.target('q', 50, 10)).toBe(4 * PREFETCH_HORIZON_MS);
    // at the window's end: (4 + 40 / 100) / 2 = 2.2 a ms
    expect(b.target('q', 100, 10)).toBe(Math.floor(2.2 * PREFETCH_HORIZON_MS));
  });

  it('hands out held rows in claim order, and moves the stale ones aside instead', () => {
    const b = prefetchBuffer(1_000);
    b.hold([claimed(1), claimed(2)], 0);
    b.hold([claimed(3)], 900);
    expect(b.size()).toBe(3);
    const stale: ClaimedJob[] = [];
    expect(b.next('q', 1_500, stale)?.input).toEqual({ n: 3 });
    expect(stale).toHaveLength(2);
    b.hold([claimed(4), claimed(5)], 2_000);
    expect(b.takeStale(2_500)).toEqual([]);
    expect(b.takeStale(3_000)).toHaveLength(2);
    b.hold([claimed(6)], 3_000);
    expect(b.takeAll()).toHaveLength(1);
    expect(b.size()).toBe(0);
  });
});

describe('jobWorker batching', () => {
  let h: JobsHarness | undefined;
  let hold: (() => void) | undefined;
  afterEach(async () => {
    hold?.();
    hold = undefined;
    await h?.close();
    h = undefined;
  });

  /** A job whose run of n = 1,000 blocks until the test lets it go. */
  const blocking = (name: string) =>
    job({
      name,
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: ({ input: i }) =>
        i.n === 1_000 ? new Promise<void>((resolve) => (hold = resolve)) : undefined,
    });

  /** Enqueues n = 1,000 (first in claim order) and `rest` more in one write, then wakes the worker once. */
  const backlog = async (harness: JobsHarness, name: string, rest: number) => {
    const rows = [1_000, ...Array.from({ length: rest }, (_, i) => 1_001 + i)].map((n, i) => ({
      ...request(harness.clock, i),
      name,
      queue: 'default',
      input: { n },
      idempotencyKey: `n:${n}`,
    }));
    await harness.driver.enqueueMany(rows);
    harness.worker.signalEnqueued('default');
    await harness.settle();
  };

  it('gives a completed run’s slot to the next row when its ack is sent, not when it lands', async () => {
    const started: number[] = [];
    const handle = job({
      name: 'batch.slot',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: ({ input: i }) => void started.push(i.n),
    });
    const g = gatedAcks();
    h = await runJobs({
      jobs: [handle],
      claimAhead: true,
      concurrency: 1,
      driver: g.driver,
      clock: g.clock,
    });
    await handle.enqueue({ n: 1 });
    await handle.enqueue({ n: 2 });
    await h.settle();
    // the first ack is still on the wire, and the second run already started (and sent its own)
    expect(started).toEqual([1, 2]);
    expect(g.batches).toHaveLength(2);
    expect((await g.inner.stats())[0]).toMatchObject({ running: 2, done: 0 });
    await g.releaseAll();
    expect((await g.inner.stats())[0]).toMatchObject({ running: 0, done: 2 });
    expect(h.worker.stats()).toMatchObject({ completed: 2, inFlight: 0 });
  });

  it('claims ahead once it has measured a rate, and hands held rows back uncounted on a drain', async () => {
    const handle = blocking('batch.prefetch');
    h = await runJobs({ jobs: [handle], claimAhead: true, concurrency: 1 });
    for (let n = 0; n < 10; n++) await handle.enqueue({ n });
    await h.settle();
    expect(h.worker.stats().completed).toBe(10);
    await h.advance(100); // 10 runs in one 100 ms window: 0.1 a ms

    await backlog(h, 'batch.prefetch', 39);
    // one slot, blocked by the first run; the claim took the rows expected to start within the horizon as well
    const target = Math.floor(0.1 * PREFETCH_HORIZON_MS);
    expect((await h.driver.stats())[0]?.running).toBe(1 + target);
    expect(h.worker.stats().inFlight).toBe(1);

    h.worker.beginDrain('SIGTERM');
    await h.settle();
    hold?.();
    hold = undefined;
    const stopping = h.worker.stop();
    await h.settle();
    await stopping;
    // every held row is waiting again, its attempt handed back: none started, none counted
    const rows = await h.driver.introspect!.list({ state: 'ready', limit: 100 });
    const held = rows.filter((r) => (r.input as { n: number }).n > 1_000);
    expect(held).toHaveLength(39);
    expect(held.every((r) => r.attempt === 0)).toBe(true);
    // the blocked run finished its body despite the drain: it completes; the held rows never started
    expect(h.worker.stats().completed).toBe(11);
    expect(h.worker.stats().claimed).toBe(11);
  });

  it('hands a held row back rather than start it once it has waited a heartbeat interval', async () => {
    const handle = blocking('batch.stale');
    h = await runJobs({
      jobs: [handle],
      claimAhead: true,
      concurrency: 1,
      visibilityTimeoutMs: 3_000,
    });
    for (let n = 0; n < 10; n++) await handle.enqueue({ n });
    await h.settle();
    await h.advance(100);
    await backlog(h, 'batch.stale', 9);
    expect((await h.driver.stats())[0]?.running).toBe(10);

    const claimedAt = h.clock.now();
    // the heartbeat interval is 1 s: past it, the held rows go back instead of waiting on, uncounted — the pass that
    // hands them back may claim some again (the worker still measures a rate), afresh, none of them started
    await h.advance(1_100);
    const rows = (await h.driver.introspect!.list({ limit: 100 })).filter(
      (r) => (r.input as { n: number }).n > 1_000,
    );
    expect(rows).toHaveLength(9);
    for (const r of rows) {
      if (r.state === 'ready') expect(r.attempt).toBe(0);
      else expect(r).toMatchObject({ state: 'running', attempt: 1, updatedAt: claimedAt + 1_000 });
    }
    expect(rows.some((r) => r.state === 'ready')).toBe(true);
    expect(h.worker.stats().inFlight).toBe(1);
    hold?.();
    hold = undefined;
    await h.settle();
    await h.advance(5_000);
    expect(h.worker.stats().completed).toBe(10 + 10);
  });

  it('claims ahead by default, but never a row its claim puts on its final attempt', async () => {
    const handle = blocking('batch.ahead-final');
    h = await runJobs({ jobs: [handle], concurrency: 1 });
    for (let n = 0; n < 10; n++) await handle.enqueue({ n });
    await h.settle();
    await h.advance(100); // 10 runs in one 100 ms window: a target of 20 rows ahead
    // n = 1,000 first, then 39 rows of which every other one has a single attempt: its first claim is its last
    const rows = [1_000, ...Array.from({ length: 39 }, (_, i) => 1_001 + i)].map((n, i) => ({
      ...request(h!.clock, i),
      name: 'batch.ahead-final',
      queue: 'default',
      input: { n },
      idempotencyKey: `n:${n}`,
      maxAttempts: n % 2 === 1 ? 3 : 1,
    }));
    await h.driver.enqueueMany(rows);
    h.worker.signalEnqueued('default');
    await h.settle();
    const running = await h.driver.introspect!.list({ state: 'running', limit: 100 });
    const ahead = running.filter((r) => (r.input as { n: number }).n !== 1_000);
    // the slot took n = 1,000 (its claim may be final: it starts at once); of the next 20, only the 10 with attempts left
    expect(running.find((r) => (r.input as { n: number }).n === 1_000)).toBeDefined();
    expect(ahead).toHaveLength(10);
    expect(ahead.every((r) => r.attempt < r.maxAttempts)).toBe(true);
    expect(h.worker.stats().inFlight).toBe(1);
    hold?.();
    hold = undefined;
    await h.settle();
    await h.advance(5_000);
    expect(h.worker.stats().completed).toBe(10 + 40);
  });

  it('claims only for free slots with claimAhead: false', async () => {
    const handle = blocking('batch.no-ahead');
    h = await runJobs({ jobs: [handle], concurrency: 1, claimAhead: false });
    for (let n = 0; n < 10; n++) await handle.enqueue({ n });
    await h.settle();
    await h.advance(100); // the same measured rate that makes a claiming-ahead worker take 20 rows ahead
    await backlog(h, 'batch.no-ahead', 39);
    expect((await h.driver.stats())[0]).toMatchObject({ running: 1, ready: 39 });
    hold?.();
    hold = undefined;
    await h.settle();
    await h.advance(5_000);
    expect(h.worker.stats().completed).toBe(10 + 40);
  });
});
