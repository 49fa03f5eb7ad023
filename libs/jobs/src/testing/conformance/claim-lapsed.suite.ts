import type { RescueRequest } from '../../driver/job-driver';
import { claimOf } from '../../driver/job-row';
import { idsOf, VT, type Harness, type RescuePath } from './harness';

/**
 * A rescuing claim (`claimAndRescue`, the worker's combined path), once a lease lapsed: the row is re-taken with a
 * new claim that fences the old one out, or buried on its final attempt, the burial answered in the result apart from
 * the claimed rows; a plain `claim` leaves it alone. Registered inside `claimSuite`'s describe, once per
 * {@link RescuePath}: through the driver's `claimRescuing`, and through `rescue()` then `claim()` as on a driver
 * without it — both must answer alike. `rescue()` alone: `rescueSuite`.
 */
export function claimLapsedSuite(h: Harness, path: RescuePath): void {
  /** One rescuing claim of the harness's queue (limit 10, every name) for its worker. */
  const rescuing = (request: RescueRequest = {}) => h.rescuing({}, request);
  const title =
    path === 'driver'
      ? 'a lapsed lease, rescued through the driver (claimRescuing)'
      : 'a lapsed lease, rescued through rescue() then claim()';

  describe(title, () => {
    beforeEach(() => h.useRescuePath(path));

    it('is re-claimed at its expiry with attempt + 1 and a new claim token', async () => {
      const first = await h.running({}, { visibilityTimeoutMs: 1_000 });
      await h.clock().advance(999);
      expect(await h.claim({ workerId: 'worker-b', rescue: true })).toEqual([]);
      await h.clock().advance(1);
      const [again] = await h.claim({ workerId: 'worker-b', rescue: true });
      expect(again).toMatchObject({ id: first.id, attempt: 2, workerId: 'worker-b' });
      expect(again?.claim).not.toBe(first.claim);
    });

    it('fences the old claim out of ack, nack, heartbeat, progress and steps', async () => {
      const old = await h.running({}, { visibilityTimeoutMs: 1_000 });
      await h.clock().advance(1_000);
      const [now] = await h.claim({ workerId: 'worker-b', rescue: true });
      const stale = claimOf(old);
      const d = h.driver();
      expect(await d.ack(old.id, stale)).toBe(false);
      expect(await d.nack(old.id, { ...stale, kind: 'dead', error: 'late' })).toBe(false);
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
      const [again] = await h.claim({ rescue: true });
      expect(again?.workerId).toBe(old.workerId);
      expect(await h.driver().ack(old.id, claimOf(old))).toBe(false);
      expect(await h.driver().ack(old.id, claimOf(again!))).toBe(true);
    });

    describe('on the final attempt', () => {
      const exhaust = async (maxAttempts: number): Promise<string> => {
        const request = await h.enqueue({ maxAttempts });
        for (let attempt = 1; attempt <= maxAttempts; attempt++) {
          const [row] = await h.claim({ visibilityTimeoutMs: 1_000, rescue: true });
          expect(row).toMatchObject({ id: request.id, attempt });
          await h.clock().advance(1_000);
        }
        return request.id;
      };

      it('is buried dead with LEASE_LAPSED_FINAL_ATTEMPT and answered once', async () => {
        const id = await exhaust(2);
        const { claimed, rescued } = await rescuing();
        expect(claimed).toEqual([]);
        expect(rescued.buried).toHaveLength(1);
        expect(rescued.buried[0]).toMatchObject({
          id,
          state: 'dead',
          attempt: 2,
          lastError: 'LEASE_LAPSED_FINAL_ATTEMPT',
          claim: null,
        });
        expect(rescued.buried[0]!.finishedAt).not.toBeNull();
        expect(await h.driver().get(id)).toMatchObject({
          state: 'dead',
          lastError: 'LEASE_LAPSED_FINAL_ATTEMPT',
          claim: null,
        });
        expect(await rescuing()).toEqual({ claimed: [], rescued: { buried: [] } });
      });

      it('fences the dead attempt out of its late ack', async () => {
        const request = await h.enqueue({ maxAttempts: 1 });
        const [row] = await h.claim({ visibilityTimeoutMs: 1_000 });
        await h.clock().advance(1_000);
        await h.claim({ rescue: true });
        expect(await h.driver().ack(request.id, claimOf(row!))).toBe(false);
        expect((await h.driver().get(request.id))?.state).toBe('dead');
      });

      it('is buried failed when its job is named in dropExhausted', async () => {
        const dropped = (await h.enqueue({ maxAttempts: 1, name: 'conformance.dropped' })).id;
        const kept = (await h.enqueue({ maxAttempts: 1, name: 'conformance.kept' })).id;
        expect(await h.claim({ visibilityTimeoutMs: 1_000 })).toHaveLength(2);
        await h.clock().advance(1_000);
        const { rescued } = await rescuing({ dropExhausted: new Set(['conformance.dropped']) });
        expect(rescued.buried.map((r) => [r.id, r.state]).sort()).toEqual(
          [
            [dropped, 'failed'],
            [kept, 'dead'],
          ].sort(),
        );
        expect((await h.driver().get(dropped))?.state).toBe('failed');
        expect((await h.driver().get(kept))?.state).toBe('dead');
      });

      it('answers every row buried in one pass in one result', async () => {
        const a = await h.enqueue({ maxAttempts: 1 });
        const b = await h.enqueue({ maxAttempts: 1 });
        expect(await h.claim({ visibilityTimeoutMs: 1_000 })).toHaveLength(2);
        await h.clock().advance(1_000);
        expect(idsOf((await rescuing()).rescued.buried)).toEqual(idsOf([a, b]));
      });

      it('does not spend the slot limit: due rows behind it are still claimed', async () => {
        const dead = await exhaust(1);
        const ready = await h.enqueue();
        const claimed = await h.claim({ limit: 1, rescue: true });
        expect(idsOf(claimed)).toEqual([ready.id]);
        expect((await h.driver().get(dead))?.state).toBe('dead');
      });
    });

    describe('by a plain claim (no rescue)', () => {
      it('is neither re-taken nor buried, and a rescuing claim then is', async () => {
        const lapsed = await h.running({}, { visibilityTimeoutMs: 1_000 });
        const final = await h.running({ maxAttempts: 1 }, { visibilityTimeoutMs: 1_000 });
        await h.clock().advance(1_000);
        expect(await h.claim()).toEqual([]);
        expect(await h.driver().get(lapsed.id)).toMatchObject({ state: 'running', attempt: 1 });
        expect(await h.driver().get(final.id)).toMatchObject({ state: 'running', attempt: 1 });

        const { claimed, rescued } = await rescuing();
        expect(idsOf(claimed)).toEqual([lapsed.id]);
        expect(idsOf(rescued.buried)).toEqual([final.id]);
        expect((await h.driver().get(final.id))?.state).toBe('dead');
      });

      it('still takes waiting rows', async () => {
        const lapsed = await h.running({}, { visibilityTimeoutMs: 1_000 });
        await h.clock().advance(1_000);
        const ready = await h.enqueue();
        expect(idsOf(await h.claim())).toEqual([ready.id]);
        expect((await h.driver().get(lapsed.id))?.claim).toBe(lapsed.claim);
        expect(idsOf(await h.claim({ rescue: true }))).toEqual([lapsed.id]);
      });
    });

    it('answers no burial when nothing was buried', async () => {
      await h.running({}, { visibilityTimeoutMs: 1_000 });
      await h.clock().advance(1_000);
      const { claimed, rescued } = await rescuing();
      expect(claimed).toHaveLength(1);
      expect(rescued.buried).toEqual([]);
    });
  });
}
