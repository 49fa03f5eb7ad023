import { job } from '../declare/job';
import type { JobSettled } from '../declare/run-args';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { JobRegistry } from '../registry/job-registry';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { jobWorker } from './job-worker';

const input = t.object({ account: t.string, n: t.number });
type Input = { account: string; n: number };

/** A body the test releases run by run. */
function gate(): {
  wait: () => Promise<void>;
  open: () => void;
  inFlight: () => number;
  max: () => number;
} {
  let waiting: (() => void)[] = [];
  let now = 0;
  let peak = 0;
  return {
    wait: () => {
      now++;
      peak = Math.max(peak, now);
      return new Promise<void>((resolve) =>
        waiting.push(() => {
          now--;
          resolve();
        }),
      );
    },
    open: () => {
      const all = waiting;
      waiting = [];
      for (const r of all) r();
    },
    inFlight: () => now,
    max: () => peak,
  };
}

describe('job.concurrency: fleet-wide caps through the lease store', () => {
  let harnesses: JobsHarness[] = [];
  afterEach(async () => {
    for (const h of harnesses) await h.close();
    harnesses = [];
  });

  it('a plain cap of 2 holds across two workers on one driver', async () => {
    const g = gate();
    const capped = job({
      name: 'conc.plain',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      concurrency: 2,
      run: () => g.wait(),
    });
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const a = await runJobs({ jobs: [capped], clock, driver, concurrency: 5 });
    const registry = new JobRegistry();
    registry.register(capped);
    const b = await runJobs({
      jobs: [],
      registry,
      clock,
      driver,
      concurrency: 5,
      installFacade: false,
    });
    harnesses = [b, a];
    for (let n = 0; n < 12; n++) await capped.enqueue({ account: 'x', n });
    for (let round = 0; round < 20; round++) {
      await clock.advance(300);
      expect(g.inFlight()).toBeLessThanOrEqual(2);
      g.open();
    }
    await clock.advance(1_000);
    const done = (await driver.introspect.list({ name: 'conc.plain', state: 'done' })).length;
    expect(done).toBe(12);
    expect(g.max()).toBe(2);
    expect(a.worker.stats().deferred + b.worker.stats().deferred).toBeGreaterThan(0);
    // A deferral is uncounted: every job completed on its first attempt.
    const rows = await driver.introspect.list({ name: 'conc.plain' });
    expect(rows.every((r) => r.attempt === 1)).toBe(true);
  });

  it("whenBusy 'fail' refuses a second run for a held key: failed, X_JOB_KEY_BUSY, body never run, hook told", async () => {
    const g = gate();
    const ran: number[] = [];
    const settled: JobSettled<Input, unknown>[] = [];
    const sync = job({
      name: 'conc.keyed-fail',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 3 },
      concurrency: { key: ({ account }) => account, limit: 1, whenBusy: 'fail' },
      run: async ({ input: i }) => {
        ran.push(i.n);
        await g.wait();
      },
      onSettled: (s) => void settled.push(s),
    });
    const h = await runJobs({ jobs: [sync] });
    harnesses = [h];
    const first = await sync.enqueue({ account: 'acct-1', n: 1 });
    await h.settle();
    const second = await sync.enqueue({ account: 'acct-1', n: 2 });
    const otherKey = await sync.enqueue({ account: 'acct-2', n: 3 });
    await h.settle();

    expect(ran.sort()).toEqual([1, 3]);
    const refused = await h.driver.get(second.id);
    expect(refused?.state).toBe('failed');
    expect(refused?.lastError).toContain('X_JOB_KEY_BUSY');
    expect(refused?.attempt).toBe(0); // refused: the body never ran, no attempt counted
    expect(h.worker.stats().refused).toBe(1);
    expect(h.metrics.total('default', 'failed')).toBe(1);
    expect(settled).toEqual([
      expect.objectContaining({ outcome: 'refused', code: 'X_JOB_KEY_BUSY', jobId: second.id }),
    ]);
    expect((await h.driver.get(otherKey.id))?.state).toBe('running');

    // Nothing retries it; once the first finishes, a requeue runs it.
    g.open();
    await h.settle();
    await h.advance(10_000);
    expect((await h.driver.get(second.id))?.state).toBe('failed');
    expect((await h.driver.get(first.id))?.state).toBe('done');
    await h.driver.introspect?.requeue(second.id);
    h.worker.signalEnqueued('default');
    await h.settle();
    g.open();
    await h.settle();
    expect(ran.filter((n) => n === 2)).toHaveLength(1);
    expect((await h.driver.get(second.id))?.state).toBe('done');
  });

  it("whenBusy 'wait' keeps the run ready, burns no attempt, and runs it once the key frees", async () => {
    const g = gate();
    const ran: number[] = [];
    const sync = job({
      name: 'conc.keyed-wait',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      concurrency: { key: ({ account }) => account, limit: 1 },
      run: async ({ input: i }) => {
        ran.push(i.n);
        await g.wait();
      },
    });
    const h = await runJobs({ jobs: [sync] });
    harnesses = [h];
    await sync.enqueue({ account: 'acct-1', n: 1 });
    await h.settle();
    const second = await sync.enqueue({ account: 'acct-1', n: 2 });
    await h.settle();
    await h.advance(1_000);
    expect(ran).toEqual([1]);
    expect((await h.driver.get(second.id))?.attempt).toBe(0);
    g.open();
    await h.settle();
    await h.advance(300);
    expect(ran).toEqual([1, 2]);
    g.open();
    await h.settle();
    expect(await h.driver.get(second.id)).toMatchObject({ state: 'done', attempt: 1 });
  });

  it('a run is never refused by its own leftovers: a retry meets the slot its last claim still holds', async () => {
    let calls = 0;
    const flaky = job({
      name: 'conc.own-leftovers',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 3, delay: 10, jitter: false },
      concurrency: { key: ({ account }) => account, limit: 1, whenBusy: 'fail' },
      run: () => {
        calls++;
        if (calls === 1) throw new Error('transient');
      },
    });
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const h = await runJobs({ jobs: [flaky], clock, driver });
    harnesses = [h];
    const { id } = await flaky.enqueue({ account: 'acct-1', n: 1 });
    // Leave a leftover holder under the run's own id, as a release that never landed would.
    await driver.leases.acquire('job-key:conc.own-leftovers:acct-1', id, 1, 60_000);
    await h.settle();
    await h.advance(50);
    expect(await h.driver.get(id)).toMatchObject({ state: 'done' });
    expect(h.worker.stats().refused).toBe(0);
  });

  it('a SIGKILLed holder frees its key after the lease TTL with no cleanup call', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const sync = job({
      name: 'conc.sigkill',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      concurrency: { key: ({ account }) => account, limit: 1 },
      run: async () => undefined,
    });
    // The dead worker's slot: taken, never renewed, never released.
    await driver.leases.acquire('job-key:conc.sigkill:acct-1', 'dead-holder', 1, 30_000);
    const h = await runJobs({ jobs: [sync], clock, driver, visibilityTimeoutMs: 30_000 });
    harnesses = [h];
    const { id } = await sync.enqueue({ account: 'acct-1', n: 1 });
    await h.settle();
    await h.advance(29_000);
    expect((await driver.get(id))?.state).not.toBe('done');
    await h.advance(2_000);
    expect((await driver.get(id))?.state).toBe('done');
  });

  it('a slot taken by another holder aborts the run with X_JOB_SLOT_LOST', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    let reason: unknown;
    const sync = job({
      name: 'conc.slot-lost',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 1 },
      concurrency: { key: ({ account }) => account, limit: 1 },
      run: ({ signal }) =>
        new Promise<void>((_, reject) =>
          signal.addEventListener('abort', () => {
            reason = signal.reason;
            reject(signal.reason);
          }),
        ),
    });
    const h = await runJobs({ jobs: [sync], clock, driver, visibilityTimeoutMs: 30_000 });
    harnesses = [h];
    const { id } = await sync.enqueue({ account: 'acct-1', n: 1 });
    await h.settle();
    // Another holder takes the slot out from under it (its lease was released by an operator, say).
    await driver.leases.release('job-key:conc.slot-lost:acct-1', id);
    await driver.leases.acquire('job-key:conc.slot-lost:acct-1', 'intruder', 1, 60_000);
    await h.advance(10_000);
    expect(errorCodeOf(reason)).toBe('X_JOB_SLOT_LOST');
    expect(h.logger.named('jobs.worker.slot-lost')).toHaveLength(1);
    expect((await driver.get(id))?.state).toBe('dead');
  });

  it('start() refuses a driver with no lease store while a served job declares concurrency', async () => {
    const memory = memoryJobDriver();
    const { leases: _leases, introspect: _introspect, ...rest } = memory;
    const noLeases: JobDriver = { ...rest, kind: 'no-leases', steps: memory.steps };
    const capped = job({
      name: 'conc.unenforceable',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      concurrency: 1,
      run: async () => undefined,
    });
    const registry = new JobRegistry();
    registry.register(capped);
    const worker = jobWorker({ driver: noLeases, registry, clock: frozenClock() });
    let thrown: unknown;
    await worker.start().catch((error: unknown) => {
      thrown = error;
    });
    expect(errorCodeOf(thrown)).toBe('X_JOB_CONCURRENCY_UNENFORCEABLE');
  });
});
