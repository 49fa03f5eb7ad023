import { prepareEnqueue } from '../declare/enqueue';
import { job } from '../declare/job';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { processLimits } from './limits';

describe('processLimits (per-process caps)', () => {
  it('caps per tenant, per queue and globally, and gives places back', () => {
    const limits = processLimits({ perTenant: 1, perQueue: { q: 2 }, global: 3 }, frozenClock());
    expect(limits.tryAcquire({ queue: 'q', tenantId: 'a' })).toBe('ok');
    expect(limits.tryAcquire({ queue: 'q', tenantId: 'a' })).toBe('perTenant');
    expect(limits.fullTenants()).toEqual(['a']);
    expect(limits.tryAcquire({ queue: 'q', tenantId: 'b' })).toBe('ok');
    expect(limits.tryAcquire({ queue: 'q', tenantId: 'c' })).toBe('perQueue');
    expect(limits.tryAcquire({ queue: 'other', tenantId: null })).toBe('ok');
    expect(limits.tryAcquire({ queue: 'other', tenantId: null })).toBe('global');
    limits.release({ queue: 'q', tenantId: 'a' });
    expect(limits.fullTenants()).toEqual(['b']);
    expect(limits.tryAcquire({ queue: 'other', tenantId: 'a' })).toBe('ok');
  });

  it('answers the room left: per queue, and shared by every queue for the worst tenant', async () => {
    const clock = frozenClock();
    expect(processLimits({}, clock).sharedRoom()).toBe(Infinity);
    expect(processLimits({}, clock).queueRoom('q')).toBe(Infinity);
    const limits = processLimits(
      { perTenant: 3, perQueue: { q: 2 }, global: 5, ratePerTenant: { limit: 4, windowMs: 1_000 } },
      clock,
    );
    expect([limits.queueRoom('q'), limits.queueRoom('other'), limits.sharedRoom()]).toEqual([
      2,
      Infinity,
      3,
    ]);
    limits.tryAcquire({ queue: 'q', tenantId: 'a' });
    limits.tryAcquire({ queue: 'other', tenantId: 'a' });
    // tenant a holds 2 of its 3: one more row of unknown tenant may be a's
    expect([limits.queueRoom('q'), limits.sharedRoom()]).toEqual([1, 1]);
    limits.release({ queue: 'q', tenantId: 'a' });
    limits.release({ queue: 'other', tenantId: 'a' });
    // none in flight, but a started twice in the window: 2 of its 4 starts left
    expect([limits.queueRoom('q'), limits.sharedRoom()]).toEqual([2, 2]);
    await clock.advance(1_001);
    expect(limits.sharedRoom()).toBe(3);
    for (let i = 0; i < 3; i++) limits.tryAcquire({ queue: 'other', tenantId: null });
    // tenantless runs count against the global cap only
    expect(limits.sharedRoom()).toBe(2);
  });

  it('reads a perQueue table by its own keys only: a queue named like an Object member has no cap', () => {
    const limits = processLimits({ perQueue: { emails: 1 } }, frozenClock());
    for (const queue of ['constructor', 'toString', 'hasOwnProperty']) {
      expect(limits.queueRoom(queue)).toBe(Infinity);
      expect(limits.tryAcquire({ queue, tenantId: null })).toBe('ok');
    }
    expect(limits.queueRoom('emails')).toBe(1);
  });

  it('rate-limits starts per tenant within a window on the clock', async () => {
    const clock = frozenClock();
    const limits = processLimits({ ratePerTenant: { limit: 2, windowMs: 1_000 } }, clock);
    const run = { queue: 'q', tenantId: 't' };
    expect(limits.tryAcquire(run)).toBe('ok');
    limits.release(run);
    expect(limits.tryAcquire(run)).toBe('ok');
    limits.release(run);
    expect(limits.tryAcquire(run)).toBe('ratePerTenant');
    await clock.advance(1_001);
    expect(limits.tryAcquire(run)).toBe('ok');
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses a cap of %p with X_INVARIANT',
    (v) => {
      expect(() => processLimits({ perTenant: v }, frozenClock())).toThrow(
        expect.objectContaining({ code: 'X_INVARIANT' }),
      );
    },
  );
});

describe('LimitConfig in the worker', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    h?.worker.beginDrain('test-end');
    await h?.close();
    h = undefined;
  });

  it("one tenant's 5,000-job import does not starve another tenant's jobs under perTenant", async () => {
    const started: { tenant: string; at: number }[] = [];
    const work = job({
      name: 'limits.import',
      input: t.object({ orgId: t.string, n: t.number }),
      idempotencyKey: ({ orgId, n }) => `${orgId}:${n}`,
      tenant: ({ orgId }) => orgId,
      run: async ({ input, signal }) => {
        started.push({ tenant: input.orgId, at: h?.clock.now() ?? 0 });
        // Each run takes 100 ms of (driven) time, and unwinds on the drain.
        await new Promise<void>((resolve, reject) => {
          const timer = h?.clock.setTimeout(resolve, 100);
          signal.addEventListener('abort', () => {
            timer?.cancel();
            reject(signal.reason);
          });
        });
      },
    });
    h = await runJobs({ jobs: [work], concurrency: 8, limits: { perTenant: 4 } });
    const requests = await Promise.all(
      Array.from({ length: 5_000 }, (_, n) =>
        prepareEnqueue(work, { orgId: 'big-importer', n }, {}, undefined, h?.clock.now() ?? 0),
      ),
    );
    await h.driver.enqueueMany(requests);
    h.worker.signalEnqueued('default');
    await h.advance(50);
    const enqueuedAt = h.clock.now();
    for (let n = 0; n < 10; n++) await work.enqueue({ orgId: 'small-tenant', n });
    await h.advance(2_000);
    const small = started.filter((s) => s.tenant === 'small-tenant');
    expect(small).toHaveLength(10);
    const waits = small.map((s) => s.at - enqueuedAt);
    expect(Math.max(...waits)).toBeLessThan(1_000);
    // The importer never held more than its per-process share at once, and kept running.
    expect(started.filter((s) => s.tenant === 'big-importer').length).toBeGreaterThan(20);
  }, 20_000);
});
