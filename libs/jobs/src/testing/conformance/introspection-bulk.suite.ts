import type { EnqueueRequest, StepRecord } from '../../driver/job-driver';
import { MAX_BULK_ROWS } from '../../driver/introspection';
import { claimOf, type JobState } from '../../driver/job-row';
import { idsOf, LATER, Q, type Harness } from './harness';

const LIVE: readonly JobState[] = ['ready', 'delayed', 'running', 'suspended'];
const NOT_PROMOTABLE: readonly JobState[] = [
  'running',
  'suspended',
  'done',
  'failed',
  'dead',
  'cancelled',
];

/** requeueMany / removeMany / promoteMany: one state narrowed by queue, name and tenant, bounded per call. */
export function introspectionBulkSuite(h: Harness): void {
  /** Enqueues `n` rows in one batch, claims them in passes and buries each `dead`; answers their ids, oldest first. */
  const deadRows = async (
    n: number,
    overrides: Partial<EnqueueRequest> = {},
  ): Promise<string[]> => {
    const requests = Array.from({ length: n }, () => h.request(overrides));
    await h.driver().enqueueMany(requests);
    const queue = overrides.queue ?? Q;
    for (let buried = 0; buried < n;) {
      const rows = await h.claim({ queue, limit: 500 });
      if (rows.length === 0) throw new Error('conformance: fewer rows claimable than enqueued');
      for (const row of rows) {
        await h.driver().nack(row.id, { ...claimOf(row), kind: 'dead', error: 'boom' });
      }
      buried += rows.length;
    }
    return requests.map((r) => r.id);
  };
  const stateOf = async (id: string): Promise<JobState | undefined> =>
    (await h.driver().get(id))?.state;

  describe('introspect.requeueMany', () => {
    it(`moves ${MAX_BULK_ROWS} rows a call: 2,500 dead rows requeued in three calls, then nothing remains`, async () => {
      const ids = await deadRows(2_500);
      const requeueMany = h.introspect().requeueMany;
      expect(await requeueMany({ state: 'dead' })).toEqual({ affected: 1_000, remaining: 1_500 });
      expect(await stateOf(ids[0]!)).toBe('ready'); // oldest first
      expect(await stateOf(ids[2_499]!)).toBe('dead');
      expect(await requeueMany({ state: 'dead' })).toEqual({ affected: 1_000, remaining: 500 });
      expect(await requeueMany({ state: 'dead' })).toEqual({ affected: 500, remaining: 0 });
      expect(await requeueMany({ state: 'dead' })).toEqual({ affected: 0, remaining: 0 });
      expect(await h.introspect().list({ state: 'dead' })).toEqual([]);
      const claimed = await h.claim({ limit: 10 });
      expect(claimed.map((r) => r.attempt)).toEqual(Array(10).fill(1));
    }, 120_000);

    it('moves only the rows of its state, queue, name and tenant, as fresh runs', async () => {
      const [match] = await deadRows(1, { name: 'conformance.a', tenantId: 'org-1' });
      const [otherName] = await deadRows(1, { name: 'conformance.b', tenantId: 'org-1' });
      const [otherTenant] = await deadRows(1, { name: 'conformance.a', tenantId: 'org-2' });
      const [otherQueue] = await deadRows(1, {
        name: 'conformance.a',
        tenantId: 'org-1',
        queue: 'q-b',
      });
      const failed = await h.rowIn('failed', { name: 'conformance.a', tenantId: 'org-1' });
      const result = await h.introspect().requeueMany({
        state: 'dead',
        queue: Q,
        name: 'conformance.a',
        tenantId: 'org-1',
      });
      expect(result).toEqual({ affected: 1, remaining: 0 });
      expect(await h.driver().get(match!)).toMatchObject({
        state: 'ready',
        attempt: 0,
        lastError: null,
        finishedAt: null,
      });
      for (const id of [otherName!, otherTenant!, otherQueue!])
        expect(await stateOf(id)).toBe('dead');
      expect(await stateOf(failed.id)).toBe('failed');
    });

    it('starts the requeued run afresh: the progress its last attempt recorded is gone', async () => {
      const { id } = await h.enqueue();
      const [row] = await h.claim();
      if (row?.id !== id) throw new Error('conformance: claimed another row');
      expect(await h.driver().recordProgress(id, claimOf(row), { done: 1, total: 2 })).toBe(true);
      await h.driver().nack(id, { ...claimOf(row), kind: 'dead', error: 'boom' });
      expect((await h.driver().get(id))?.progress).toMatchObject({ done: 1, total: 2 });
      expect(await h.introspect().requeueMany({ state: 'dead' })).toEqual({
        affected: 1,
        remaining: 0,
      });
      expect(await h.driver().get(id)).toMatchObject({
        state: 'ready',
        attempt: 0,
        progress: null,
      });
    });

    it('leaves a row whose key a live job holds, and does not count it as remaining', async () => {
      const [held] = await deadRows(1, { idempotencyKey: 'k-held' });
      const [free] = await deadRows(1);
      const live = await h.enqueue({ idempotencyKey: 'k-held' });
      expect(await h.introspect().requeueMany({ state: 'dead' })).toEqual({
        affected: 1,
        remaining: 0,
      });
      expect(await stateOf(held!)).toBe('dead');
      expect(await stateOf(free!)).toBe('ready');
      expect(await stateOf(live.id)).toBe('ready');
      expect(await h.introspect().requeueMany({ state: 'dead' })).toEqual({
        affected: 0,
        remaining: 0,
      });
    });

    it('of several finished rows sharing one key, requeues the oldest; the others are then held', async () => {
      const [oldest] = await deadRows(1, { idempotencyKey: 'k-shared' });
      const [newer] = await deadRows(1, { idempotencyKey: 'k-shared' });
      expect(await h.introspect().requeueMany({ state: 'dead' })).toEqual({
        affected: 1,
        remaining: 0,
      });
      expect(await stateOf(oldest!)).toBe('ready');
      expect(await stateOf(newer!)).toBe('dead');
    });

    it('keeps the steps a run stored', async () => {
      const row = await h.running();
      const step: StepRecord = { name: 'a', output: 1, attempt: 1, startedAt: 0, completedAt: 0 };
      await h.driver().steps.save(row.id, claimOf(row), step);
      await h.driver().nack(row.id, { ...claimOf(row), kind: 'dead', error: 'x' });
      await h.introspect().requeueMany({ state: 'dead' });
      expect((await h.driver().steps.load(row.id)).map((s) => s.name)).toEqual(['a']);
    });

    it.each(LIVE)(
      'refuses state %s with X_JOB_NOT_REQUEUEABLE and moves nothing',
      async (state) => {
        const request = await h.rowIn(state);
        await expect(h.introspect().requeueMany({ state })).rejects.toMatchObject({
          code: 'X_JOB_NOT_REQUEUEABLE',
        });
        expect(await stateOf(request.id)).toBe(state);
      },
    );
  });

  describe('introspect.removeMany', () => {
    it(`deletes ${MAX_BULK_ROWS} rows a call, oldest first, until none remain`, async () => {
      const requests = Array.from({ length: MAX_BULK_ROWS + 1 }, () => h.request());
      await h.driver().enqueueMany(requests);
      const removeMany = h.introspect().removeMany;
      expect(await removeMany({ state: 'ready' })).toEqual({
        affected: MAX_BULK_ROWS,
        remaining: 1,
      });
      expect(idsOf(await h.introspect().list())).toEqual([requests[MAX_BULK_ROWS]!.id]);
      expect(await removeMany({ state: 'ready' })).toEqual({ affected: 1, remaining: 0 });
      expect(await removeMany({ state: 'ready' })).toEqual({ affected: 0, remaining: 0 });
    });

    it('deletes the rows of its filter with their steps; the rest stay', async () => {
      const row = await h.running();
      const step: StepRecord = { name: 'a', output: 1, attempt: 1, startedAt: 0, completedAt: 0 };
      await h.driver().steps.save(row.id, claimOf(row), step);
      await h.driver().nack(row.id, { ...claimOf(row), kind: 'dead', error: 'x' });
      const otherQueue = await h.rowIn('dead', { queue: 'q-b' });
      const done = await h.rowIn('done');
      expect(await h.introspect().removeMany({ state: 'dead', queue: Q })).toEqual({
        affected: 1,
        remaining: 0,
      });
      expect(await h.driver().get(row.id)).toBeUndefined();
      expect(await h.driver().steps.load(row.id)).toEqual([]);
      expect(await stateOf(otherQueue.id)).toBe('dead');
      expect(await stateOf(done.id)).toBe('done');
    });

    it('refuses state running with X_JOB_NOT_REMOVABLE and deletes nothing', async () => {
      const row = await h.running();
      await expect(h.introspect().removeMany({ state: 'running' })).rejects.toMatchObject({
        code: 'X_JOB_NOT_REMOVABLE',
      });
      expect(await stateOf(row.id)).toBe('running');
    });
  });

  describe('introspect.promoteMany', () => {
    it(`makes ${MAX_BULK_ROWS} delayed rows a call due now; remaining is the rows still waiting`, async () => {
      const runAt = h.clock().now() + LATER;
      const requests = Array.from({ length: MAX_BULK_ROWS + 1 }, () => h.request({ runAt }));
      await h.driver().enqueueMany(requests);
      const promoteMany = h.introspect().promoteMany;
      expect(await promoteMany({ state: 'delayed' })).toEqual({
        affected: MAX_BULK_ROWS,
        remaining: 1,
      });
      expect(await h.driver().get(requests[0]!.id)).toMatchObject({
        state: 'ready',
        runAt: h.clock().now(),
      });
      expect(await stateOf(requests[MAX_BULK_ROWS]!.id)).toBe('delayed');
      expect(await promoteMany({ state: 'delayed' })).toEqual({ affected: 1, remaining: 0 });
      expect(await promoteMany({ state: 'delayed' })).toEqual({ affected: 0, remaining: 0 });
      expect(await h.claim({ limit: 5 })).toHaveLength(5);
    });

    it('promotes a row backing off after a nack, never a ready row already due, and keeps to its queue', async () => {
      const running = await h.running();
      const later = h.clock().now() + LATER;
      await h
        .driver()
        .nack(running.id, { ...claimOf(running), kind: 'retry', error: 'x', runAt: later });
      const due = await h.enqueue();
      const elsewhere = await h.enqueue({ queue: 'q-b', runAt: later });
      expect(await h.introspect().promoteMany({ state: 'ready', queue: Q })).toEqual({
        affected: 0,
        remaining: 0,
      });
      expect(await h.introspect().promoteMany({ state: 'delayed', queue: Q })).toEqual({
        affected: 1,
        remaining: 0,
      });
      expect(idsOf(await h.claim())).toEqual(idsOf([running, due]));
      expect(await stateOf(elsewhere.id)).toBe('delayed');
    });

    it.each(NOT_PROMOTABLE)('refuses state %s with X_JOB_NOT_PROMOTABLE', async (state) => {
      const request = await h.rowIn(state);
      const before = await h.driver().get(request.id);
      await expect(h.introspect().promoteMany({ state } as never)).rejects.toMatchObject({
        code: 'X_JOB_NOT_PROMOTABLE',
      });
      expect(await h.driver().get(request.id)).toEqual(before);
    });
  });

  describe('bulk filters under the value contract', () => {
    const calls = ['requeueMany', 'removeMany', 'promoteMany'] as const;
    it.each(calls)('%s refuses a filter no row could match with X_VALUE_INVALID', async (call) => {
      const bulk = h.introspect()[call] as (filter: unknown) => Promise<unknown>;
      for (const [filter, field] of [
        [undefined, `${call}(filter)`],
        [{}, `${call}(filter).state`],
        [{ state: 'DEAD' }, `${call}(filter).state`],
        [{ state: 'delayed', queue: 'q\u0000' }, `${call}(filter).queue`],
        [{ state: 'delayed', name: 42 }, `${call}(filter).name`],
        [{ state: 'delayed', tenantId: 't\ud800' }, `${call}(filter).tenantId`],
      ] as const) {
        await expect(bulk(filter)).rejects.toMatchObject({
          code: 'X_VALUE_INVALID',
          meta: { field },
        });
      }
    });
  });
}
