import { unstartedHandBack, type NackOptions } from '../../driver/job-driver';
import { claimOf } from '../../driver/job-row';
import { idsOf, VT, type Harness } from './harness';

/** ack / nack / heartbeat / recordProgress: where each moves the row, and that each is fenced on the claim. */
export function settleSuite(h: Harness): void {
  describe('ack', () => {
    it('settles the row done and clears its claim and lease', async () => {
      const row = await h.running();
      expect(await h.driver().ack(row.id, { ...claimOf(row), durationMs: 12 })).toBe(true);
      const done = await h.driver().get(row.id);
      expect(done).toMatchObject({
        state: 'done',
        attempt: 1,
        claim: null,
        workerId: null,
        leaseExpiresAt: null,
      });
      expect(done?.finishedAt).not.toBeNull();
      expect(await h.claim()).toEqual([]);
    });

    it('lands once: a second ack of the same claim answers false', async () => {
      const row = await h.running();
      expect(await h.driver().ack(row.id, claimOf(row))).toBe(true);
      expect(await h.driver().ack(row.id, claimOf(row))).toBe(false);
    });

    it('answers false for a claim token or worker that is not the current one', async () => {
      const row = await h.running();
      const d = h.driver();
      expect(await d.ack(row.id, { workerId: row.workerId, claim: h.newId() })).toBe(false);
      expect(await d.ack(row.id, { workerId: 'worker-z', claim: row.claim })).toBe(false);
      expect((await d.get(row.id))?.state).toBe('running');
    });

    it('answers false for a row that is not running, and for an unknown id', async () => {
      const ready = await h.enqueue();
      const ref = { workerId: 'worker-a', claim: h.newId() };
      expect(await h.driver().ack(ready.id, ref)).toBe(false);
      expect(await h.driver().ack(h.newId(), ref)).toBe(false);
      expect((await h.driver().get(ready.id))?.state).toBe('ready');
    });
  });

  describe('nack', () => {
    it('with no run time is ready again at once and counts the attempt', async () => {
      const row = await h.running();
      expect(
        await h.driver().nack(row.id, { ...claimOf(row), kind: 'retry', error: 'flaky' }),
      ).toBe(true);
      expect(await h.driver().get(row.id)).toMatchObject({
        state: 'ready',
        attempt: 1,
        lastError: 'flaky',
        claim: null,
        workerId: null,
        leaseExpiresAt: null,
        finishedAt: null,
      });
      const [again] = await h.claim();
      expect(again).toMatchObject({ id: row.id, attempt: 2 });
    });

    it('with a future run time is delayed and not claimable until it is due', async () => {
      const row = await h.running();
      const runAt = h.clock().now() + 10_000;
      await h.driver().nack(row.id, { ...claimOf(row), kind: 'retry', error: 'backoff', runAt });
      expect(await h.driver().get(row.id)).toMatchObject({ state: 'delayed', runAt });
      await h.clock().advance(9_999);
      expect(await h.claim()).toEqual([]);
      await h.clock().advance(1);
      expect(await h.claim()).toMatchObject([{ id: row.id, attempt: 2 }]);
    });

    it('handBack hands the attempt back: the next claim presents the same number', async () => {
      const row = await h.running();
      await h.driver().nack(row.id, { ...claimOf(row), kind: 'handBack', error: null });
      expect(await h.driver().get(row.id)).toMatchObject({ state: 'ready', attempt: 0 });
      expect(await h.claim()).toMatchObject([{ id: row.id, attempt: 1 }]);
    });

    it('an unstarted hand-back puts the row back as it was: its run time, its last error, its attempt', async () => {
      const runAt = h.clock().now() - 5_000;
      const first = await h.running({ runAt });
      await h.driver().nack(first.id, { ...claimOf(first), kind: 'retry', error: 'boom', runAt });
      const [again] = await h.claim();
      if (again?.id !== first.id) throw new Error('conformance: claimed another row');
      expect(await h.driver().nack(again.id, unstartedHandBack(again))).toBe(true);
      expect(await h.driver().get(first.id)).toMatchObject({
        state: 'ready',
        attempt: 1,
        lastError: 'boom',
        runAt,
      });
    });

    it('park suspends the row until its run time, the attempt uncounted, then it is claimable', async () => {
      const row = await h.running();
      const runAt = h.clock().now() + 60_000;
      const parked: NackOptions = { ...claimOf(row), kind: 'park', error: null, runAt };
      expect(await h.driver().nack(row.id, parked)).toBe(true);
      expect(await h.driver().get(row.id)).toMatchObject({
        state: 'suspended',
        attempt: 0,
        runAt,
        finishedAt: null,
        claim: null,
      });
      await h.clock().advance(59_999);
      expect(await h.claim()).toEqual([]);
      await h.clock().advance(1);
      expect(await h.claim()).toMatchObject([{ id: row.id, state: 'running', attempt: 1 }]);
    });

    it.each([
      ['dead', 'dead'],
      ['fail', 'failed'],
    ] as const)('%s settles the row %s for good', async (kind, state) => {
      const row = await h.running();
      expect(await h.driver().nack(row.id, { ...claimOf(row), kind, error: 'no' })).toBe(true);
      const settled = await h.driver().get(row.id);
      expect(settled).toMatchObject({ state, lastError: 'no', claim: null, attempt: 1 });
      expect(settled?.finishedAt).not.toBeNull();
      await h.clock().advance(VT * 10);
      expect(await h.claim()).toEqual([]);
    });

    it('fail with uncounted settles the row failed and hands the attempt back (a refusal: the body never ran)', async () => {
      const row = await h.running();
      const refused: NackOptions = {
        ...claimOf(row),
        kind: 'fail',
        error: 'busy',
        uncounted: true,
      };
      expect(await h.driver().nack(row.id, refused)).toBe(true);
      const settled = await h.driver().get(row.id);
      expect(settled).toMatchObject({ state: 'failed', lastError: 'busy', attempt: 0 });
      expect(settled?.finishedAt).not.toBeNull();
    });

    it('replaces NUL characters in the error text with U+FFFD', async () => {
      const row = await h.running();
      await h
        .driver()
        .nack(row.id, { ...claimOf(row), kind: 'retry', error: 'bad\u0000byte\u0000' });
      expect((await h.driver().get(row.id))?.lastError).toBe('bad\ufffdbyte\ufffd');
    });

    it('is fenced: a wrong claim answers false and moves nothing', async () => {
      const row = await h.running();
      const wrong: NackOptions = {
        workerId: row.workerId,
        claim: h.newId(),
        kind: 'dead',
        error: 'x',
      };
      expect(await h.driver().nack(row.id, wrong)).toBe(false);
      expect(await h.driver().get(row.id)).toMatchObject({ state: 'running', claim: row.claim });
    });
  });

  describe('heartbeat', () => {
    it('extends the lease, so a claim at the old expiry does not re-take the row', async () => {
      const row = await h.running({}, { visibilityTimeoutMs: 1_000 });
      await h.clock().advance(600);
      expect(await h.driver().heartbeat(row.id, claimOf(row), 1_000)).toBe(true);
      const renewed = await h.driver().get(row.id);
      expect(renewed?.leaseExpiresAt).toBeGreaterThan(row.leaseExpiresAt);
      expect(renewed?.claim).toBe(row.claim);
      await h.clock().advance(400);
      expect(await h.claim({ workerId: 'worker-b', rescue: true })).toEqual([]);
      await h.clock().advance(600);
      expect(idsOf(await h.claim({ workerId: 'worker-b', rescue: true }))).toEqual([row.id]);
    });

    it('answers false for a wrong claim, and after the row settled', async () => {
      const row = await h.running();
      expect(await h.driver().heartbeat(row.id, { ...claimOf(row), claim: h.newId() }, VT)).toBe(
        false,
      );
      await h.driver().ack(row.id, claimOf(row));
      expect(await h.driver().heartbeat(row.id, claimOf(row), VT)).toBe(false);
      expect((await h.driver().get(row.id))?.leaseExpiresAt).toBeNull();
    });
  });

  describe('recordProgress', () => {
    it('stores the run’s last progress', async () => {
      const row = await h.running();
      const d = h.driver();
      expect(await d.recordProgress(row.id, claimOf(row), { done: 1, total: 4 })).toBe(true);
      const latest = { done: 3, total: 4, note: 'page 3' };
      expect(await d.recordProgress(row.id, claimOf(row), latest)).toBe(true);
      expect((await d.get(row.id))?.progress).toEqual(latest);
    });

    it('is fenced: a wrong claim answers false and writes nothing', async () => {
      const row = await h.running();
      const wrong = { ...claimOf(row), claim: h.newId() };
      expect(await h.driver().recordProgress(row.id, wrong, { done: 1, total: 2 })).toBe(false);
      expect((await h.driver().get(row.id))?.progress).toBeNull();
    });
  });
}
