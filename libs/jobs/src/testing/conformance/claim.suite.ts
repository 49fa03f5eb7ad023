import type { JobRow } from '../../driver/job-row';
import { claimOf } from '../../driver/job-row';
import { idsOf, LATER, Q, VT, WORKER, type Harness } from './harness';

/** claim: what is due, in what order, how many, and what happens to a lease that lapsed. */
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

    describe('a lapsed lease', () => {
      it('is re-claimed at its expiry with attempt + 1 and a new claim token', async () => {
        const first = await h.running({}, { visibilityTimeoutMs: 1_000 });
        await h.clock().advance(999);
        expect(await h.claim({ workerId: 'worker-b' })).toEqual([]);
        await h.clock().advance(1);
        const [again] = await h.claim({ workerId: 'worker-b' });
        expect(again).toMatchObject({ id: first.id, attempt: 2, workerId: 'worker-b' });
        expect(again?.claim).not.toBe(first.claim);
      });

      it('fences the old claim out of ack, nack, heartbeat, progress and steps', async () => {
        const old = await h.running({}, { visibilityTimeoutMs: 1_000 });
        await h.clock().advance(1_000);
        const [now] = await h.claim({ workerId: 'worker-b' });
        const stale = claimOf(old);
        const d = h.driver();
        expect(await d.ack(old.id, stale)).toBe(false);
        expect(await d.nack(old.id, { ...stale, error: 'late', deadLetter: true })).toBe(false);
        expect(await d.heartbeat(old.id, stale, VT)).toBe(false);
        expect(await d.recordProgress(old.id, stale, { done: 1, total: 2 })).toBe(false);
        const step = { name: 's', output: 1, attempt: 1, startedAt: 0, completedAt: 0 };
        expect(await d.steps.save(old.id, stale, step)).toBe(false);
        expect(await d.steps.load(old.id)).toEqual([]);
        expect(await d.get(old.id)).toMatchObject({
          state: 'running',
          claim: now?.claim,
          progress: null,
        });
        expect(await d.ack(old.id, claimOf(now!))).toBe(true);
      });

      it('fences the old claim even when the same worker re-claims the row', async () => {
        const old = await h.running({}, { visibilityTimeoutMs: 1_000 });
        await h.clock().advance(1_000);
        const [again] = await h.claim();
        expect(again?.workerId).toBe(old.workerId);
        expect(await h.driver().ack(old.id, claimOf(old))).toBe(false);
        expect(await h.driver().ack(old.id, claimOf(again!))).toBe(true);
      });

      describe('on the final attempt', () => {
        const exhaust = async (maxAttempts: number): Promise<string> => {
          const request = await h.enqueue({ maxAttempts });
          for (let attempt = 1; attempt <= maxAttempts; attempt++) {
            const [row] = await h.claim({ visibilityTimeoutMs: 1_000 });
            expect(row).toMatchObject({ id: request.id, attempt });
            await h.clock().advance(1_000);
          }
          return request.id;
        };

        it('is buried dead with LEASE_LAPSED_FINAL_ATTEMPT and announced once', async () => {
          const id = await exhaust(2);
          const told: JobRow[][] = [];
          const onExhausted = (rows: readonly JobRow[]): void => void told.push([...rows]);
          expect(await h.claim({ onExhausted })).toEqual([]);
          expect(told).toHaveLength(1);
          expect(told[0]).toHaveLength(1);
          expect(told[0]![0]).toMatchObject({
            id,
            state: 'dead',
            attempt: 2,
            lastError: 'LEASE_LAPSED_FINAL_ATTEMPT',
            claim: null,
          });
          expect(told[0]![0]!.finishedAt).not.toBeNull();
          expect(await h.driver().get(id)).toMatchObject({
            state: 'dead',
            lastError: 'LEASE_LAPSED_FINAL_ATTEMPT',
            claim: null,
          });
          expect(await h.claim({ onExhausted })).toEqual([]);
          expect(told).toHaveLength(1);
        });

        it('fences the dead attempt out of its late ack', async () => {
          const request = await h.enqueue({ maxAttempts: 1 });
          const [row] = await h.claim({ visibilityTimeoutMs: 1_000 });
          await h.clock().advance(1_000);
          await h.claim();
          expect(await h.driver().ack(request.id, claimOf(row!))).toBe(false);
          expect((await h.driver().get(request.id))?.state).toBe('dead');
        });

        it('is buried failed when its job is named in dropExhausted', async () => {
          const dropped = (await h.enqueue({ maxAttempts: 1, name: 'conformance.dropped' })).id;
          const kept = (await h.enqueue({ maxAttempts: 1, name: 'conformance.kept' })).id;
          expect(await h.claim({ visibilityTimeoutMs: 1_000 })).toHaveLength(2);
          await h.clock().advance(1_000);
          const told: JobRow[] = [];
          await h.claim({
            dropExhausted: new Set(['conformance.dropped']),
            onExhausted: (rows) => void told.push(...rows),
          });
          expect(told.map((r) => [r.id, r.state]).sort()).toEqual(
            [
              [dropped, 'failed'],
              [kept, 'dead'],
            ].sort(),
          );
          expect((await h.driver().get(dropped))?.state).toBe('failed');
          expect((await h.driver().get(kept))?.state).toBe('dead');
        });

        it('announces every row buried in one pass in one call', async () => {
          const a = await h.enqueue({ maxAttempts: 1 });
          const b = await h.enqueue({ maxAttempts: 1 });
          expect(await h.claim({ visibilityTimeoutMs: 1_000 })).toHaveLength(2);
          await h.clock().advance(1_000);
          const calls: (readonly JobRow[])[] = [];
          await h.claim({ onExhausted: (rows) => void calls.push(rows) });
          expect(calls).toHaveLength(1);
          expect(idsOf(calls[0]!)).toEqual(idsOf([a, b]));
        });

        it('does not spend the slot limit: due rows behind it are still claimed', async () => {
          const dead = await exhaust(1);
          const ready = await h.enqueue();
          const claimed = await h.claim({ limit: 1 });
          expect(idsOf(claimed)).toEqual([ready.id]);
          expect((await h.driver().get(dead))?.state).toBe('dead');
        });
      });

      describe('with rescue: false', () => {
        it('is neither re-taken nor buried, and a claim that rescues (the default) then is', async () => {
          const lapsed = await h.running({}, { visibilityTimeoutMs: 1_000 });
          const final = await h.running({ maxAttempts: 1 }, { visibilityTimeoutMs: 1_000 });
          await h.clock().advance(1_000);
          const told: JobRow[] = [];
          const onExhausted = (rows: readonly JobRow[]): void => void told.push(...rows);
          expect(await h.claim({ rescue: false, onExhausted })).toEqual([]);
          expect(told).toEqual([]);
          expect(await h.driver().get(lapsed.id)).toMatchObject({ state: 'running', attempt: 1 });
          expect(await h.driver().get(final.id)).toMatchObject({ state: 'running', attempt: 1 });

          expect(idsOf(await h.claim({ onExhausted }))).toEqual([lapsed.id]);
          expect(idsOf(told)).toEqual([final.id]);
          expect((await h.driver().get(final.id))?.state).toBe('dead');
        });

        it('still takes waiting rows', async () => {
          const lapsed = await h.running({}, { visibilityTimeoutMs: 1_000 });
          await h.clock().advance(1_000);
          const ready = await h.enqueue();
          expect(idsOf(await h.claim({ rescue: false }))).toEqual([ready.id]);
          expect((await h.driver().get(lapsed.id))?.claim).toBe(lapsed.claim);
          expect(idsOf(await h.claim({ rescue: true }))).toEqual([lapsed.id]);
        });
      });

      it('calls no onExhausted when nothing was buried', async () => {
        await h.running({}, { visibilityTimeoutMs: 1_000 });
        await h.clock().advance(1_000);
        let calls = 0;
        expect(await h.claim({ onExhausted: () => void calls++ })).toHaveLength(1);
        expect(calls).toBe(0);
      });
    });

    it('re-takes a row whose lease lapsed before a due row of lower priority', async () => {
      const lapsed = await h.running({ priority: 0 }, { visibilityTimeoutMs: 1_000 });
      await h.clock().advance(1_000);
      await h.enqueue({ priority: 9, runAt: h.clock().now() - LATER });
      expect(idsOf(await h.claim({ limit: 1 }))).toEqual([lapsed.id]);
    });

    it('claims a row of the default test queue only through a slot naming it', async () => {
      await h.enqueue();
      expect(await h.claim({ queue: 'some-other-queue' })).toEqual([]);
      expect(await h.claim({ queue: Q })).toHaveLength(1);
    });
  });
}
