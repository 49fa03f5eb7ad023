import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { PREFETCH_HORIZON_MS } from './prefetch';
import { batchRequest as request, gatedAcks } from '../../test/gated-acks';

const input = t.object({ n: t.number });

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

  it('a manual stop() hands the held rows back uncounted as well, and waits for the run', async () => {
    const handle = blocking('batch.stop-held');
    h = await runJobs({ jobs: [handle], claimAhead: true, concurrency: 1 });
    for (let n = 0; n < 10; n++) await handle.enqueue({ n });
    await h.settle();
    await h.advance(100); // 10 runs in one 100 ms window: a target of 20 rows ahead
    await backlog(h, 'batch.stop-held', 39);
    expect((await h.driver.stats())[0]?.running).toBe(1 + 20);

    const stopping = h.worker.stop();
    await h.settle();
    hold?.();
    hold = undefined;
    await h.settle();
    await stopping;
    const rows = await h.driver.introspect!.list({ state: 'ready', limit: 100 });
    const back = rows.filter((r) => (r.input as { n: number }).n > 1_000);
    expect(back).toHaveLength(39);
    expect(back.every((r) => r.attempt === 0)).toBe(true);
    expect(h.worker.stats()).toMatchObject({ completed: 11, claimed: 11, inFlight: 0 });
  });

  it('starts the rows it holds in priority order as the slot frees', async () => {
    const started: number[] = [];
    const handle = job({
      name: 'batch.priority',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: ({ input: i }) => {
        started.push(i.n);
        return i.n === 1_000 ? new Promise<void>((resolve) => (hold = resolve)) : undefined;
      },
    });
    h = await runJobs({ jobs: [handle], claimAhead: true, concurrency: 1 });
    for (let n = 0; n < 10; n++) await handle.enqueue({ n });
    await h.settle();
    await h.advance(100); // a target of 20 rows ahead: the claim below takes them all
    started.length = 0;
    // n = 1,000 first in claim order (priority 0), then five rows whose priorities run against their order
    const priorities = [0, 5, 3, 4, 1, 2];
    const rows = priorities.map((priority, i) => ({
      ...request(h!.clock, i),
      name: 'batch.priority',
      queue: 'default',
      input: { n: 1_000 + i },
      idempotencyKey: `n:${1_000 + i}`,
      priority,
    }));
    await h.driver.enqueueMany(rows);
    h.worker.signalEnqueued('default');
    await h.settle();
    expect(started).toEqual([1_000]);
    expect((await h.driver.stats())[0]?.running).toBe(6);
    hold?.();
    hold = undefined;
    await h.settle();
    expect(started).toEqual([1_000, 1_004, 1_005, 1_002, 1_003, 1_001]);
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
