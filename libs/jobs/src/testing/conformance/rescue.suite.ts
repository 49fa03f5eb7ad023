import type { RescueOptions } from '../../driver/job-driver';
import { claimAndRescue } from '../../driver/job-driver';
import { claimOf } from '../../driver/job-row';
import { idsOf, Q, VT, WORKER, type Harness, type RescuePath } from './harness';

/**
 * Rescue of lapsed leases as its own operation: `driver.rescue()` alone (the final attempts buried and answered, the
 * others made claimable again, names not served left as `RescueSlot.names` says) and `claimAndRescue`, the worker's
 * combined path, answering its burials beside the claimed rows — through the driver's `claimRescuing` and through
 * `rescue()` then `claim()`.
 */
export function rescueSuite(h: Harness): void {
  const rescue = (over: Partial<RescueOptions> = {}) =>
    h.driver().rescue({ slots: [{ queue: Q }], visibilityTimeoutMs: VT, ...over });

  describe('rescue', () => {
    it('makes a lapsed lease with attempts left claimable again: ready, attempt kept, then attempt + 1', async () => {
      const held = await h.running({}, { visibilityTimeoutMs: 1_000 });
      await h.clock().advance(1_000);
      expect(await rescue()).toEqual({ buried: [] });
      expect(await h.driver().get(held.id)).toMatchObject({
        state: 'ready',
        attempt: 1,
        claim: null,
        workerId: null,
        leaseExpiresAt: null,
        runAt: held.runAt,
      });
      expect(await h.driver().ack(held.id, claimOf(held))).toBe(false);
      const [again] = await h.claim({ workerId: 'worker-b' });
      expect(again).toMatchObject({ id: held.id, attempt: 2, workerId: 'worker-b' });
    });

    it('makes every lapsed lease of a queue claimable in one call', async () => {
      const held = [];
      for (let i = 0; i < 3; i++) held.push(await h.running({}, { visibilityTimeoutMs: 1_000 }));
      await h.clock().advance(1_000);
      expect(await rescue()).toEqual({ buried: [] });
      for (const row of held) expect((await h.driver().get(row.id))?.state).toBe('ready');
    });

    it('leaves a live lease alone', async () => {
      const held = await h.running({}, { visibilityTimeoutMs: 1_000 });
      await h.clock().advance(999);
      expect(await rescue()).toEqual({ buried: [] });
      expect(await h.driver().get(held.id)).toMatchObject({ state: 'running', claim: held.claim });
    });

    it('buries a final attempt dead (failed when named in dropExhausted) and answers it once', async () => {
      const dropped = await h.running(
        { maxAttempts: 1, name: 'conformance.dropped' },
        { visibilityTimeoutMs: 1_000 },
      );
      const kept = await h.running({ maxAttempts: 1 }, { visibilityTimeoutMs: 1_000 });
      await h.clock().advance(1_000);
      const { buried } = await rescue({ dropExhausted: new Set(['conformance.dropped']) });
      expect(buried.map((r) => [r.id, r.state]).sort()).toEqual(
        [
          [dropped.id, 'failed'],
          [kept.id, 'dead'],
        ].sort(),
      );
      expect(buried[0]).toMatchObject({ lastError: 'LEASE_LAPSED_FINAL_ATTEMPT', claim: null });
      expect(buried[0]?.finishedAt).not.toBeNull();
      expect(await h.driver().get(kept.id)).toMatchObject({ state: 'dead', claim: null });
      expect(await rescue()).toEqual({ buried: [] });
      expect(await h.driver().ack(kept.id, claimOf(kept))).toBe(false);
    });

    it('does not make a name it does not serve claimable; buries its final attempt a timeout later', async () => {
      const other = { name: 'conformance.other' };
      const left = await h.running(other, { visibilityTimeoutMs: 1_000 });
      const final = await h.running({ ...other, maxAttempts: 1 }, { visibilityTimeoutMs: 1_000 });
      const slots = [{ queue: Q, names: ['conformance.job'] }];
      await h.clock().advance(1_000);
      expect(await rescue({ slots, visibilityTimeoutMs: 1_000 })).toEqual({ buried: [] });
      await h.clock().advance(999);
      expect(await rescue({ slots, visibilityTimeoutMs: 1_000 })).toEqual({ buried: [] });
      await h.clock().advance(1);
      const { buried } = await rescue({ slots, visibilityTimeoutMs: 1_000 });
      expect(idsOf(buried)).toEqual([final.id]);
      expect(await h.driver().get(left.id)).toMatchObject({ state: 'running', claim: left.claim });
    });

    it('is not held back by a page of lapsed rows it cannot rescue (River #1318): its own is re-taken within two', async () => {
      const other = 'conformance.other';
      const others = Array.from({ length: 1_001 }, () => h.request({ name: other }));
      await h.driver().enqueueMany(others);
      const held = await h.claim({ names: [other], limit: 1_001, visibilityTimeoutMs: 1_000 });
      expect(held).toHaveLength(1_001);
      await h.clock().advance(1);
      // its own row lapses after all 1,001 of them: behind them, oldest lapse first
      const own = await h.running({}, { names: ['conformance.job'], visibilityTimeoutMs: 1_000 });
      await h.clock().advance(1_000);
      const slots = [{ queue: Q, names: ['conformance.job'] }];
      for (let call = 0; call < 2; call++) {
        expect(await rescue({ slots, visibilityTimeoutMs: 1_000 })).toEqual({ buried: [] });
      }
      expect(await h.driver().get(own.id)).toMatchObject({
        state: 'ready',
        attempt: 1,
        claim: null,
      });
      expect(idsOf(await h.claim({ names: ['conformance.job'] }))).toEqual([own.id]);
      const first = held[0];
      expect(first && (await h.driver().get(first.id))).toMatchObject({
        state: 'running',
        claim: first?.claim,
      });
      expect(await h.driver().stats()).toEqual(
        expect.arrayContaining([expect.objectContaining({ queue: Q, running: 1_002 })]),
      );
    });

    it('a slot serving no name makes nothing claimable, and buries its final attempts a timeout later', async () => {
      const left = await h.running({}, { visibilityTimeoutMs: 1_000 });
      const final = await h.running({ maxAttempts: 1 }, { visibilityTimeoutMs: 1_000 });
      const slots = [{ queue: Q, names: [] }];
      await h.clock().advance(1_999);
      expect(await rescue({ slots, visibilityTimeoutMs: 1_000 })).toEqual({ buried: [] });
      await h.clock().advance(1);
      expect(idsOf((await rescue({ slots, visibilityTimeoutMs: 1_000 })).buried)).toEqual([
        final.id,
      ]);
      expect(await h.driver().get(left.id)).toMatchObject({ state: 'running', claim: left.claim });
    });

    it('touches only the queues it is given', async () => {
      const held = await h.running(
        { queue: 'conformance-other-q' },
        { visibilityTimeoutMs: 1_000 },
      );
      await h.clock().advance(1_000);
      expect(await rescue()).toEqual({ buried: [] });
      expect(await h.driver().get(held.id)).toMatchObject({ state: 'running', claim: held.claim });
    });

    for (const path of ['driver', 'fallback'] as const satisfies readonly RescuePath[]) {
      it(`claimAndRescue (${path}): one pass re-takes, claims, and answers its burials beside the rows`, async () => {
        h.useRescuePath(path);
        const lapsed = await h.running({}, { visibilityTimeoutMs: 1_000 });
        const final = await h.running({ maxAttempts: 1 }, { visibilityTimeoutMs: 1_000 });
        await h.clock().advance(1_000);
        const ready = await h.enqueue();
        const { claimed, rescued } = await h.rescuing();
        expect(idsOf(claimed)).toEqual([lapsed.id, ready.id]);
        expect(claimed.find((row) => row.id === lapsed.id)).toMatchObject({ attempt: 2 });
        expect(rescued.buried.map((r) => [r.id, r.state])).toEqual([[final.id, 'dead']]);
        expect(await h.rescuing()).toEqual({ claimed: [], rescued: { buried: [] } });
      });
    }

    it('claimAndRescue without claimRescuing: a claim failing after the rescue still answers the burials', async () => {
      const final = await h.running({ maxAttempts: 1 }, { visibilityTimeoutMs: 1_000 });
      await h.clock().advance(1_000);
      const waiting = await h.enqueue();
      const d = h.driver();
      const failing = {
        rescue: (options: RescueOptions) => d.rescue(options),
        claim: () => Promise.reject(new Error('claim failed')),
      };
      const claim = { workerId: WORKER, slots: [{ queue: Q, limit: 10 }], visibilityTimeoutMs: VT };
      const { claimed, rescued } = await claimAndRescue(failing, claim);
      expect(claimed).toEqual([]);
      expect(idsOf(rescued.buried)).toEqual([final.id]);
      expect((await d.get(waiting.id))?.state).toBe('ready');
      // with nothing buried, the claim's failure is the caller's
      await expect(claimAndRescue(failing, claim)).rejects.toThrow('claim failed');
    });
  });
}
