import { claimLapsedSuite } from './claim-lapsed.suite';
import { idsOf, LATER, Q, VT, WORKER, type Harness } from './harness';

/** claim: what is due, in what order, how many, and what a rescuing claim does to a lease that lapsed. */
export function claimSuite(h: Harness): void {
  describe('claim', () => {
    it('is X_JOB_CLAIM_QUEUES_EMPTY with no slot', async () => {
      await expect(
        h.driver().claim({ workerId: WORKER, slots: [], visibilityTimeoutMs: VT }),
      ).rejects.toMatchObject({ code: 'X_JOB_CLAIM_QUEUES_EMPTY' });
    });

    it('skips the rows of excluded tenants, and takes rows with no tenant', async () => {
      const full = await h.enqueue({ tenantId: 'tenant-full' });
      const other = await h.enqueue({ tenantId: 'tenant-other' });
      const none = await h.enqueue({ tenantId: null });
      const claimed = await h.claim({ excludeTenants: ['tenant-full'] });
      expect(idsOf(claimed).sort()).toEqual([other.id, none.id].sort());
      expect((await h.claim())[0]?.id).toBe(full.id);
    });

    it('answers [] when nothing is due', async () => {
      expect(await h.claim()).toEqual([]);
    });

    it('hands out a running row: attempt 1, the worker, a claim token and a lease', async () => {
      const request = await h.enqueue();
      const [row, ...rest] = await h.claim({ workerId: 'worker-x' });
      expect(rest).toEqual([]);
      expect(row).toMatchObject({
        id: request.id,
        runId: request.runId,
        state: 'running',
        attempt: 1,
        workerId: 'worker-x',
      });
      expect(typeof row?.claim).toBe('string');
      expect(row?.claim.length).toBeGreaterThan(0);
      expect(row?.leaseExpiresAt).toBeGreaterThan(request.runAt);
      expect(await h.driver().get(request.id)).toMatchObject({
        state: 'running',
        attempt: 1,
        workerId: 'worker-x',
        claim: row?.claim,
        leaseExpiresAt: row?.leaseExpiresAt,
      });
    });

    it('mints a distinct claim token per claimed row', async () => {
      await h.enqueue();
      await h.enqueue();
      const claimed = await h.claim();
      expect(claimed).toHaveLength(2);
      expect(new Set(claimed.map((r) => r.claim)).size).toBe(2);
    });

    it('does not hand out a row twice while its lease holds', async () => {
      await h.enqueue();
      expect(await h.claim()).toHaveLength(1);
      expect(await h.claim({ workerId: 'worker-b' })).toEqual([]);
      await h.clock().advance(VT - 1);
      expect(await h.claim({ workerId: 'worker-b' })).toEqual([]);
    });

    it('orders by priority, then run time, then id', async () => {
      const now = h.clock().now();
      const smallId = h.newId();
      const bigId = h.newId();
      const low = await h.enqueue({ priority: 5, runAt: now - 9_000 });
      const late = await h.enqueue({ priority: 1, runAt: now - 1_000 });
      // the larger id is enqueued first, so insertion order cannot pass for id order
      await h.enqueue({ id: bigId, priority: 1, runAt: now - 2_000 });
      await h.enqueue({ id: smallId, priority: 1, runAt: now - 2_000 });
      const order: string[] = [];
      for (let i = 0; i < 4; i++) order.push(...idsOf(await h.claim({ limit: 1 })));
      expect(order).toEqual([smallId, bigId, late.id, low.id]);
    });

    it('takes at most each slot’s limit, from that slot’s queue only', async () => {
      for (let i = 0; i < 4; i++) await h.enqueue({ queue: 'q-a' });
      const b = [await h.enqueue({ queue: 'q-b' }), await h.enqueue({ queue: 'q-b' })];
      const other = await h.enqueue({ queue: 'q-c' });
      const claimed = await h.driver().claim({
        workerId: WORKER,
        visibilityTimeoutMs: VT,
        slots: [
          { queue: 'q-a', limit: 3 },
          { queue: 'q-b', limit: 5 },
        ],
      });
      expect(claimed.filter((r) => r.queue === 'q-a')).toHaveLength(3);
      expect(idsOf(claimed.filter((r) => r.queue === 'q-b'))).toEqual(idsOf(b));
      expect(claimed).toHaveLength(5);
      expect((await h.driver().get(other.id))?.state).toBe('ready');
    });

    it('reads a fractional limit or ahead as its whole part, and a negative one as none', async () => {
      for (let i = 0; i < 5; i++) await h.enqueue({ maxAttempts: 3 });
      const claim = (limit: number, ahead = 0) =>
        h.driver().claim({
          workerId: WORKER,
          visibilityTimeoutMs: VT,
          slots: [{ queue: Q, limit, ahead }],
        });
      expect(await claim(1.9)).toHaveLength(1);
      expect(await claim(-1, 1.9)).toHaveLength(1);
      expect(await claim(-2, -1)).toEqual([]);
      expect(await claim(2.5, 0.5)).toHaveLength(2);
    });

    it('takes rows ahead of its limit only when their claim would not be their final attempt', async () => {
      const now = h.clock().now();
      // claim order: a (any), then b final, c, d final, e — maxAttempts 1 makes the first claim final
      const a = await h.enqueue({ runAt: now - 5_000, maxAttempts: 1 });
      const b = await h.enqueue({ runAt: now - 4_000, maxAttempts: 1 });
      const c = await h.enqueue({ runAt: now - 3_000, maxAttempts: 3 });
      const d = await h.enqueue({ runAt: now - 2_000, maxAttempts: 1 });
      const e = await h.enqueue({ runAt: now - 1_000, maxAttempts: 2 });
      const claimed = await h.driver().claim({
        workerId: WORKER,
        visibilityTimeoutMs: VT,
        slots: [{ queue: a.queue, limit: 1, ahead: 3 }],
      });
      // of the first limit + ahead rows (a b c d), the limit's row whatever its attempt, then c: b and d stay
      expect(idsOf(claimed)).toEqual([a.id, c.id]);
      expect((await h.driver().get(b.id))?.state).toBe('ready');
      expect((await h.driver().get(d.id))?.state).toBe('ready');
      expect((await h.driver().get(e.id))?.state).toBe('ready');
      // the final-attempt rows left behind are first in line for the next claim with a free slot
      expect(idsOf(await h.claim({ queue: a.queue, limit: 1 }))).toEqual([b.id]);
    });

    it('does not claim a delayed row before it is due, and claims it once the clock gets there', async () => {
      const request = await h.enqueue({ runAt: h.clock().now() + 5_000 });
      expect(await h.claim()).toEqual([]);
      await h.clock().advance(4_999);
      expect(await h.claim()).toEqual([]);
      await h.clock().advance(1);
      expect(idsOf(await h.claim())).toEqual([request.id]);
    });

    claimLapsedSuite(h, 'driver');
    claimLapsedSuite(h, 'fallback');

    it('re-takes a row whose lease lapsed before a due row of lower priority, on either rescue path', async () => {
      const lapsed = await h.running({ priority: 0 }, { visibilityTimeoutMs: 1_000 });
      const other = await h.running({ priority: 0 }, { visibilityTimeoutMs: 1_000 });
      await h.clock().advance(1_000);
      await h.enqueue({ priority: 9, runAt: h.clock().now() - LATER });
      expect(idsOf(await h.claim({ limit: 1, rescue: true }))).toEqual([lapsed.id]);
      h.useRescuePath('fallback');
      expect(idsOf(await h.claim({ limit: 1, rescue: true }))).toEqual([other.id]);
    });

    it('claims a row of the default test queue only through a slot naming it', async () => {
      await h.enqueue();
      expect(await h.claim({ queue: 'some-other-queue' })).toEqual([]);
      expect(await h.claim({ queue: Q })).toHaveLength(1);
    });
  });
}
