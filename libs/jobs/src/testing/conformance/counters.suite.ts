import { COUNTER_TIERS, type CounterTotals } from '../../driver/counters';
import { claimOf, type JobRow, type JobState } from '../../driver/job-row';
import { MAX_WORKER_IN_FLIGHT } from '../../driver/workers';
import { VT, WORKER, type Harness } from './harness';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The counters' view of one name next to what its rows say. */
async function rowsOf(h: Harness, name: string): Promise<readonly JobRow[]> {
  return h.introspect().list({ name, limit: 200 });
}

const count = (rows: readonly JobRow[], state: JobState): number =>
  rows.filter((r) => r.state === state).length;

/** x_job_counters and x_workers: moved by the settling statements and the registry heartbeat, read back, folded. */
export function countersSuite(h: Harness): void {
  describe('counters', () => {
    it('agree with the rows after completions, retries, dead letters, failures and burials', async () => {
      const d = h.driver();
      const name = 'conformance.counted';
      const start = h.clock().now();
      // three completions: one alone, two in one batched ack
      const a = await h.running({ name });
      expect(await d.ack(a.id, { ...claimOf(a), durationMs: 10 })).toBe(true);
      const b = await h.running({ name });
      const c = await h.running({ name });
      const batch = [
        { jobId: b.id, ...claimOf(b), durationMs: 20 },
        { jobId: c.id, ...claimOf(c), durationMs: 30 },
      ];
      expect(
        await (d.ackMany ? d.ackMany(batch) : Promise.all(batch.map((i) => d.ack(i.jobId, i)))),
      ).toEqual([true, true]);
      // a counted retry, then its completion
      const r = await h.running({ name });
      expect(
        await d.nack(r.id, { ...claimOf(r), kind: 'retry', error: 'again', durationMs: 5 }),
      ).toBe(true);
      const [again] = await h.claim({ limit: 1 });
      expect(again?.id).toBe(r.id);
      if (again) expect(await d.ack(again.id, claimOf(again))).toBe(true);
      // an uncounted hand-back and a park add nothing
      const u = await h.running({ name });
      const later = { error: null, runAt: start + HOUR };
      expect(await d.nack(u.id, { ...claimOf(u), ...later, kind: 'handBack' })).toBe(true);
      const p = await h.running({ name });
      expect(await d.nack(p.id, { ...claimOf(p), ...later, kind: 'park' })).toBe(true);
      // a dead letter, a failure
      const x = await h.running({ name });
      expect(await d.nack(x.id, { ...claimOf(x), kind: 'dead', error: 'x', durationMs: 7 })).toBe(
        true,
      );
      const f = await h.running({ name });
      expect(await d.nack(f.id, { ...claimOf(f), kind: 'fail', error: 'f', durationMs: 1 })).toBe(
        true,
      );
      // a row whose lease lapsed on its final attempt is buried by the next rescuing claim
      const z = await h.running({ name, maxAttempts: 1 });
      await h.clock().advance(VT + 1);
      expect(await h.claim({ limit: 0, rescue: true })).toEqual([]);
      expect((await d.get(z.id))?.state).toBe('dead');
      // a cancel counts, whether the job waited or ran; a cancel that finds the row finished counts nothing
      const waiting = await h.enqueue({ name });
      expect((await h.introspect().cancel(waiting.id, 'not needed'))?.state).toBe('cancelled');
      const run = await h.running({ name });
      expect((await h.introspect().cancel(run.id))?.state).toBe('cancelled');
      expect(await h.introspect().cancel(run.id)).toBeUndefined();
      expect(await h.introspect().cancel(a.id)).toBeUndefined();
      // a settle that does not land counts nothing (the cancelled run's ack included)
      expect(await d.ack(a.id, claimOf(a))).toBe(false);
      expect(await d.ack(run.id, claimOf(run))).toBe(false);

      const rows = await rowsOf(h, name);
      const [totals] = (await h.introspect().counterTotals()).filter((t) => t.job === name);
      expect(totals).toEqual<CounterTotals>({
        job: name,
        done: count(rows, 'done'),
        retried: 1,
        failed: count(rows, 'failed'),
        dead: count(rows, 'dead'),
        cancelled: count(rows, 'cancelled'),
        durationMs: 10 + 20 + 30 + 5 + 7 + 1,
      });
      expect(totals).toMatchObject({ done: 4, failed: 1, dead: 2, cancelled: 2 });
    });

    it('count into 1-minute buckets of the settling clock, read per job since a time', async () => {
      const d = h.driver();
      const t0 = h.clock().now();
      const a = await h.running({ name: 'conformance.bucketed' });
      await d.ack(a.id, { ...claimOf(a), durationMs: 4 });
      await h.clock().advance(MINUTE + 1);
      const b = await h.running({ name: 'conformance.bucketed' });
      await d.ack(b.id, { ...claimOf(b), durationMs: 6 });
      const other = await h.running({ name: 'conformance.other' });
      await d.ack(other.id, claimOf(other));

      const buckets = await h.introspect().counters({ job: 'conformance.bucketed' });
      expect(buckets.map((x) => [x.bucketMs, x.bucketStart - t0, x.done, x.durationMs])).toEqual([
        [MINUTE, 0, 1, 4],
        [MINUTE, MINUTE, 1, 6],
      ]);
      const later = await h
        .introspect()
        .counters({ job: 'conformance.bucketed', sinceMs: t0 + MINUTE });
      expect(later).toHaveLength(1);
      const totals = await h.introspect().counterTotals(t0 + MINUTE);
      expect(totals.map((t) => [t.job, t.done])).toEqual([
        ['conformance.bucketed', 1],
        ['conformance.other', 1],
      ]);
    });

    it('fold past their tier, totals unchanged, idempotently', async () => {
      const d = h.driver();
      const name = 'conformance.folded';
      const t0 = h.clock().now();
      for (let i = 0; i < 3; i++) {
        const row = await h.running({ name });
        await d.ack(row.id, { ...claimOf(row), durationMs: 1 });
        const dropped = await h.enqueue({ name });
        await h.introspect().cancel(dropped.id);
        await h.clock().advance(MINUTE);
      }
      const before = await h.introspect().counterTotals();
      expect(await h.introspect().rollupCounters()).toBe(0);

      await h.clock().advance(DAY);
      expect(await h.introspect().rollupCounters()).toBe(3);
      expect(await h.introspect().rollupCounters()).toBe(0);
      const five = await h.introspect().counters({ job: name });
      expect(
        five.map((x) => [x.bucketMs, x.bucketStart - t0, x.done, x.cancelled, x.durationMs]),
      ).toEqual([[5 * MINUTE, 0, 3, 3, 3]]);
      expect(await h.introspect().counterTotals()).toEqual(before);

      await h.clock().advance(7 * DAY);
      expect(await h.introspect().rollupCounters()).toBe(1);
      const hour = await h.introspect().counters({ job: name });
      expect(hour.map((x) => [x.bucketMs, x.bucketStart - t0, x.done])).toEqual([[HOUR, 0, 3]]);
      expect(await h.introspect().counterTotals()).toEqual(before);
      expect(COUNTER_TIERS.map((t) => t.bucketMs)).toEqual([MINUTE, 5 * MINUTE, HOUR]);
    });

    it('a 1-minute bucket older than the 5-minute tier folds straight into its hour', async () => {
      const d = h.driver();
      const row = await h.running({ name: 'conformance.late' });
      await d.ack(row.id, claimOf(row));
      await h.clock().advance(8 * DAY);
      expect(await h.introspect().rollupCounters()).toBe(1);
      const buckets = await h.introspect().counters({ job: 'conformance.late' });
      expect(buckets.map((x) => [x.bucketMs, x.done])).toEqual([[HOUR, 1]]);
    });

    it('refuse a query no bucket could answer with X_INVARIANT', async () => {
      await expect(h.introspect().counters({ job: '' })).rejects.toMatchObject({
        code: 'X_INVARIANT',
      });
      await expect(
        h.introspect().counters({ job: 'a', sinceMs: Number.NaN }),
      ).rejects.toMatchObject({
        code: 'X_INVARIANT',
      });
      await expect(h.introspect().counterTotals(Number.POSITIVE_INFINITY)).rejects.toMatchObject({
        code: 'X_INVARIANT',
      });
    });
  });

  describe('workers', () => {
    const registry = () => {
      const r = h.driver().workerRegistry;
      if (!r) throw new Error('conformance: driver.workerRegistry is absent');
      return r;
    };

    it('lists a worker after its beat, renews it, and drops it one visibility timeout after the last beat', async () => {
      const startedAt = h.clock().now();
      const held = h.newId();
      const beat = {
        id: WORKER,
        host: 'host-a',
        pid: 42,
        startedAt,
        slots: { q1: 2, q0: 1 },
        inFlight: [held],
      };
      await registry().beat(beat, VT);
      expect(await h.introspect().workers()).toEqual([
        {
          ...beat,
          queues: ['q0', 'q1'],
          heartbeatAt: startedAt,
          expiresAt: startedAt + VT,
        },
      ]);
      await h.clock().advance(VT - 1);
      await registry().beat({ ...beat, inFlight: [] }, VT);
      await h.clock().advance(VT - 1);
      const [renewed] = await h.introspect().workers();
      expect(renewed).toMatchObject({ id: WORKER, inFlight: [], heartbeatAt: startedAt + VT - 1 });
      await h.clock().advance(1);
      expect(await h.introspect().workers()).toEqual([]);
    });

    it('keeps at most MAX_WORKER_IN_FLIGHT ids, and a left worker is gone at once', async () => {
      const ids = Array.from({ length: MAX_WORKER_IN_FLIGHT + 5 }, () => h.newId());
      const now = h.clock().now();
      await registry().beat(
        { id: 'w-b', host: 'h', pid: null, startedAt: now, slots: {}, inFlight: ids },
        VT,
      );
      await registry().beat(
        { id: 'w-a', host: 'h', pid: 1, startedAt: now, slots: { q: 1 }, inFlight: [] },
        VT,
      );
      const workers = await h.introspect().workers();
      expect(workers.map((w) => w.id)).toEqual(['w-a', 'w-b']);
      expect(workers[1]?.inFlight).toEqual(ids.slice(0, MAX_WORKER_IN_FLIGHT));
      await registry().leave('w-b');
      expect((await h.introspect().workers()).map((w) => w.id)).toEqual(['w-a']);
    });
  });
}
