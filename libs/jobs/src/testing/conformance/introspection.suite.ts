import type { StepRecord } from '../../driver/job-driver';
import { claimOf, type JobState } from '../../driver/job-row';
import { idsOf, LATER, Q, VT, type Harness } from './harness';
import { introspectionBulkSuite } from './introspection-bulk.suite';
import { introspectionCancelSuite } from './introspection-cancel.suite';
import { introspectionListSuite } from './introspection-list.suite';
import { introspectionTasksSuite } from './introspection-tasks.suite';

const FINISHED: readonly JobState[] = ['done', 'failed', 'dead', 'cancelled'];
const LIVE: readonly JobState[] = ['ready', 'delayed', 'running', 'suspended'];

function step(name: string, completedAt: number): StepRecord {
  return { name, output: name, attempt: 1, startedAt: completedAt, completedAt };
}

/**
 * introspect: the operator surface — list, cancel (and a cancel under a running worker), remove, requeue, promote,
 * the bulk forms, queue and task pauses, task fires.
 */
export function introspectionSuite(h: Harness): void {
  introspectionListSuite(h);
  introspectionBulkSuite(h);
  introspectionTasksSuite(h);
  introspectionCancelSuite(h);

  describe('introspect.cancel', () => {
    it.each(LIVE)('cancels a %s row and answers it', async (state) => {
      const request = await h.rowIn(state);
      const row = await h.introspect().cancel(request.id, 'operator');
      expect(row).toMatchObject({ id: request.id, state: 'cancelled', claim: null });
      expect(row?.finishedAt).not.toBeNull();
      expect((await h.driver().get(request.id))?.state).toBe('cancelled');
      await h.clock().advance(LATER + VT);
      expect(await h.claim()).toEqual([]);
    });

    it('fences the running attempt: its ack, nack, heartbeat and step save answer false', async () => {
      const row = await h.running();
      await h.introspect().cancel(row.id);
      const d = h.driver();
      const ref = claimOf(row);
      expect(await d.ack(row.id, ref)).toBe(false);
      expect(await d.nack(row.id, { ...ref, kind: 'retry', error: 'x' })).toBe(false);
      expect(await d.heartbeat(row.id, ref, VT)).toBe(false);
      expect(await d.recordProgress(row.id, ref, { done: 1, total: 1 })).toBe(false);
      expect(await d.steps.save(row.id, ref, step('s', 1))).toBe(false);
      expect((await d.get(row.id))?.state).toBe('cancelled');
    });

    it.each(FINISHED)('leaves a %s row as it ended and answers undefined', async (state) => {
      const request = await h.rowIn(state);
      const before = await h.driver().get(request.id);
      await h.clock().advance(1_000);
      expect(await h.introspect().cancel(request.id)).toBeUndefined();
      expect(await h.driver().get(request.id)).toEqual(before);
    });

    it('answers undefined for an unknown id', async () => {
      expect(await h.introspect().cancel(h.newId())).toBeUndefined();
    });

    it('frees the idempotency key for a new enqueue', async () => {
      const first = await h.enqueue({ idempotencyKey: 'k' });
      await h.introspect().cancel(first.id);
      expect((await h.driver().enqueue(h.request({ idempotencyKey: 'k' }))).deduped).toBe(false);
    });
  });

  describe('introspect.remove', () => {
    it.each(['ready', 'delayed', 'suspended', ...FINISHED] as const)(
      'deletes a %s row and its steps',
      async (state) => {
        const request = await h.rowIn(state);
        await h.introspect().remove(request.id);
        expect(await h.driver().get(request.id)).toBeUndefined();
        expect(await h.driver().steps.load(request.id)).toEqual([]);
      },
    );

    it('deletes the steps a finished run stored', async () => {
      const row = await h.running();
      await h.driver().steps.save(row.id, claimOf(row), step('a', 1));
      await h.driver().ack(row.id, claimOf(row));
      await h.introspect().remove(row.id);
      expect(await h.driver().steps.load(row.id)).toEqual([]);
    });

    it('refuses a running row with X_JOB_NOT_REMOVABLE', async () => {
      const row = await h.running();
      await expect(h.introspect().remove(row.id)).rejects.toMatchObject({
        code: 'X_JOB_NOT_REMOVABLE',
      });
      expect((await h.driver().get(row.id))?.state).toBe('running');
    });

    it('is X_JOB_NOT_FOUND for an unknown id', async () => {
      await expect(h.introspect().remove(h.newId())).rejects.toMatchObject({
        code: 'X_JOB_NOT_FOUND',
      });
    });

    it('lets the same id be enqueued again, as a new row', async () => {
      const request = await h.rowIn('done');
      await h.introspect().remove(request.id);
      expect((await h.driver().enqueue(h.request({ id: request.id }))).deduped).toBe(false);
      expect((await h.driver().get(request.id))?.state).toBe('ready');
    });
  });

  describe('introspect.requeue', () => {
    it.each(FINISHED)('moves a %s row back to ready as a fresh run', async (state) => {
      const request = await h.rowIn(state);
      const row = await h.introspect().requeue(request.id);
      expect(row).toMatchObject({
        id: request.id,
        runId: request.runId,
        state: 'ready',
        attempt: 0,
        lastError: null,
        finishedAt: null,
        claim: null,
      });
      expect(await h.claim()).toMatchObject([{ id: request.id, attempt: 1 }]);
    });

    /** A dead row whose run stored steps a, b, c in that order. */
    const deadWithSteps = async (): Promise<string> => {
      const row = await h.running();
      for (const [i, name] of ['a', 'b', 'c'].entries()) {
        await h.driver().steps.save(row.id, claimOf(row), step(name, i));
      }
      await h.driver().nack(row.id, { ...claimOf(row), kind: 'dead', error: 'x' });
      return row.id;
    };
    const stepNames = async (id: string): Promise<string[]> =>
      (await h.driver().steps.load(id)).map((s) => s.name);

    it('keeps every step without fromStep', async () => {
      const id = await deadWithSteps();
      await h.introspect().requeue(id);
      expect(await stepNames(id)).toEqual(['a', 'b', 'c']);
    });

    it('with fromStep drops that step and every step completed after it', async () => {
      const id = await deadWithSteps();
      await h.introspect().requeue(id, { fromStep: 'b' });
      expect(await stepNames(id)).toEqual(['a']);
    });

    it('with a fromStep no stored step carries keeps every step (the step that failed never completed)', async () => {
      const id = await deadWithSteps();
      await h.introspect().requeue(id, { fromStep: 'd' });
      expect(await stepNames(id)).toEqual(['a', 'b', 'c']);
      expect((await h.driver().get(id))?.state).toBe('ready');
    });

    it.each(LIVE)('refuses a %s row with X_JOB_NOT_REQUEUEABLE', async (state) => {
      const request = await h.rowIn(state);
      await expect(h.introspect().requeue(request.id)).rejects.toMatchObject({
        code: 'X_JOB_NOT_REQUEUEABLE',
      });
      expect((await h.driver().get(request.id))?.state).toBe(state);
    });

    it('is X_JOB_NOT_FOUND for an unknown id', async () => {
      await expect(h.introspect().requeue(h.newId())).rejects.toMatchObject({
        code: 'X_JOB_NOT_FOUND',
      });
    });

    it('is X_JOB_DUPLICATE while a live row holds the key, and moves nothing', async () => {
      const id = await deadWithSteps();
      const key = (await h.driver().get(id))!.idempotencyKey;
      const live = await h.enqueue({ idempotencyKey: key });
      const refused = h.introspect().requeue(id, { fromStep: 'a' });
      await expect(refused).rejects.toMatchObject({
        code: 'X_JOB_DUPLICATE',
        meta: { id, holder: live.id },
      });
      // every driver words it alike, so an operator tool reads one message whatever the backend
      await expect(refused).rejects.toThrow(
        `Job ${id} cannot be requeued: live job ${live.id} (ready) holds its idempotency key.`,
      );
      expect((await h.driver().get(id))?.state).toBe('dead');
      expect(await stepNames(id)).toEqual(['a', 'b', 'c']);
    });
  });

  describe('introspect.promote', () => {
    it('makes a delayed row due now', async () => {
      const request = await h.enqueue({ runAt: h.clock().now() + LATER });
      const row = await h.introspect().promote(request.id);
      expect(row.id).toBe(request.id);
      expect(row.runAt).toBeLessThan(request.runAt);
      expect(idsOf(await h.claim())).toEqual([request.id]);
    });

    it('makes a row backing off after a nack due now', async () => {
      const running = await h.running();
      const runAt = h.clock().now() + LATER;
      await h.driver().nack(running.id, { ...claimOf(running), kind: 'retry', error: 'x', runAt });
      await h.introspect().promote(running.id);
      expect(await h.claim()).toMatchObject([{ id: running.id, attempt: 2 }]);
    });

    it('makes a parked (suspended) row due now', async () => {
      const request = await h.rowIn('suspended');
      await h.introspect().promote(request.id);
      expect(idsOf(await h.claim())).toEqual([request.id]);
    });

    it.each(['ready', 'running', ...FINISHED] as const)(
      'refuses a %s row not waiting on its run time with X_JOB_NOT_PROMOTABLE',
      async (state) => {
        const request = await h.rowIn(state);
        await expect(h.introspect().promote(request.id)).rejects.toMatchObject({
          code: 'X_JOB_NOT_PROMOTABLE',
        });
      },
    );

    it('is X_JOB_NOT_FOUND for an unknown id', async () => {
      await expect(h.introspect().promote(h.newId())).rejects.toMatchObject({
        code: 'X_JOB_NOT_FOUND',
      });
    });
  });

  describe('introspect queue pauses', () => {
    it('a paused queue is claimed by no worker; enqueues still land; resume restores it', async () => {
      const introspect = h.introspect();
      await introspect.pauseQueue(Q);
      await introspect.pauseQueue(Q);
      const paused = await h.enqueue();
      const other = await h.enqueue({ queue: 'q-other' });
      expect(await introspect.pausedQueues()).toEqual([Q]);
      expect((await h.driver().get(paused.id))?.state).toBe('ready');
      const claimed = await h.driver().claim({
        workerId: 'worker-a',
        visibilityTimeoutMs: VT,
        slots: [
          { queue: Q, limit: 5 },
          { queue: 'q-other', limit: 5 },
        ],
      });
      expect(idsOf(claimed)).toEqual([other.id]);
      await introspect.resumeQueue(Q);
      await introspect.resumeQueue('q-never-paused');
      expect(await introspect.pausedQueues()).toEqual([]);
      expect(idsOf(await h.claim())).toEqual([paused.id]);
    });

    it('a paused queue’s lapsed leases are not re-taken until it resumes', async () => {
      const row = await h.running({}, { visibilityTimeoutMs: 1_000 });
      await h.introspect().pauseQueue(Q);
      await h.clock().advance(1_000);
      expect(await h.claim({ rescue: true })).toEqual([]);
      await h.introspect().resumeQueue(Q);
      expect(await h.claim({ rescue: true })).toMatchObject([{ id: row.id, attempt: 2 }]);
    });

    it('a standalone rescue leaves a paused queue’s lapsed leases, final attempts too, until it resumes', async () => {
      const row = await h.running({}, { visibilityTimeoutMs: 1_000 });
      const final = await h.running({ maxAttempts: 1 }, { visibilityTimeoutMs: 1_000 });
      await h.introspect().pauseQueue(Q);
      await h.clock().advance(1_000);
      const rescue = () => h.driver().rescue({ slots: [{ queue: Q }], visibilityTimeoutMs: VT });
      expect(await rescue()).toEqual({ buried: [] });
      expect(await h.driver().get(row.id)).toMatchObject({ state: 'running', claim: row.claim });
      expect(await h.driver().get(final.id)).toMatchObject({
        state: 'running',
        claim: final.claim,
      });
      await h.introspect().resumeQueue(Q);
      expect(idsOf((await rescue()).buried)).toEqual([final.id]);
      expect((await h.driver().get(row.id))?.state).toBe('ready');
    });
  });
}
