import { Client } from 'pg';
import { claimOf } from '@ultimat3/jobs';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { until } from '../../../../test/until';
import { postgresJobDriver } from './pg-driver';

describe('postgres driver under concurrency, on the database clock', () => {
  const db = pgJobsSpec({ poolSize: 20, emptyBeforeEach: JOB_TABLES });

  it('never hands one row to two of 10 concurrent claims (skip locked)', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    await driver.enqueueMany(Array.from({ length: 300 }, () => request()));
    const passes = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        driver.claim({
          workerId: `w${i}`,
          slots: [{ queue: 'pg-q', limit: 40 }],
          visibilityTimeoutMs: 30_000,
        }),
      ),
    );
    const ids = passes.flat().map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    // skip locked may leave a contended row for the next pass, but never more than exist
    expect(ids.length).toBeLessThanOrEqual(300);
    const again = await driver.claim({
      workerId: 'sweeper',
      slots: [{ queue: 'pg-q', limit: 300 }],
      visibilityTimeoutMs: 30_000,
    });
    expect(ids.length + again.length).toBe(300);
  });

  it('grants exactly `limit` slots to 16 concurrent acquires of one key', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const granted = await Promise.all(
      Array.from({ length: 16 }, (_, i) => driver.leases.acquire('job:capped', `h${i}`, 4, 30_000)),
    );
    expect(granted.filter(Boolean)).toHaveLength(4);
    const holders = await driver.leases.holders('job:capped');
    expect(holders.map((h) => h.slot)).toEqual([0, 1, 2, 3]);
  });

  it('runs a job end to end: claim, steps, progress, heartbeat, ack', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const queued = request();
    await driver.enqueue(queued);
    const [row] = await driver.claim({
      workerId: 'w',
      slots: [{ queue: 'pg-q', limit: 1 }],
      visibilityTimeoutMs: 30_000,
    });
    expect(row?.leaseExpiresAt).toBeGreaterThan(Date.now() + 20_000);
    const ref = claimOf(row!);
    const step = { name: 'a', attempt: 1, startedAt: 1, completedAt: 2 };
    expect(
      await driver.steps.save(queued.id, ref, { ...step, output: { 'k\u0000': 'v\u0000' } }),
    ).toBe(true);
    expect(
      await driver.recordProgress(queued.id, ref, { done: 1, total: 2, note: 'n\u0000' }),
    ).toBe(true);
    expect(await driver.heartbeat(queued.id, ref, 60_000)).toBe(true);
    expect(await driver.ack(queued.id, ref)).toBe(true);
    // a step output is stored exactly (json keeps NUL); a progress note is free text, NUL replaced
    expect(await driver.steps.load(queued.id)).toEqual([
      { ...step, output: { 'k\u0000': 'v\u0000' } },
    ]);
    expect(await driver.get(queued.id)).toMatchObject({
      state: 'done',
      progress: { done: 1, total: 2, note: 'n\ufffd' },
    });
  });

  it('answers false, not a cast error, for an id or a claim that is not a uuid', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const ref = { workerId: 'w', claim: 'not-a-uuid' };
    expect(await driver.ack('also-not', ref)).toBe(false);
    expect(await driver.nack('also-not', { ...ref, kind: 'retry', error: null })).toBe(false);
    expect(await driver.heartbeat('also-not', ref, 1_000)).toBe(false);
    expect(await driver.get('also-not')).toBeUndefined();
    expect(await driver.steps.load('also-not')).toEqual([]);
    expect(await driver.introspect.cancel('also-not')).toBeUndefined();
    await expect(driver.introspect.requeue('also-not')).rejects.toMatchObject({
      code: 'X_JOB_NOT_FOUND',
    });
  });

  it('refuses a requeue when a live job takes its key while the requeue runs (X_JOB_DUPLICATE), moving nothing', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const finished = request({ idempotencyKey: 'requeue-race' });
    await driver.enqueue(finished);
    const [row] = await driver.claim({
      workerId: 'w',
      slots: [{ queue: 'pg-q', limit: 1 }],
      visibilityTimeoutMs: 30_000,
    });
    expect(await driver.ack(finished.id, claimOf(row!))).toBe(true);

    // another session enqueues a live job under the same key and has not committed when the requeue runs: the
    // requeue's statement does not see it, then waits on its index entry, and meets the key taken once it commits
    const other = new Client({ connectionString: db.url });
    await other.connect();
    try {
      // built before the transaction begins: its due time is then not after the transaction's now(), so it is ready
      const taker = request({ idempotencyKey: 'requeue-race' });
      await other.query('begin');
      await postgresJobDriver({ executor: other }).enqueue(taker);
      const requeued = driver.introspect.requeue(finished.id);
      const outcome = requeued.then(
        () => undefined,
        (error: unknown) => error,
      );
      await until(async () => {
        const { rows } = await db.pool.query<{ n: number }>(
          `select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
           where not l.granted and a.datname = current_database()`,
        );
        return rows[0]!.n > 0;
      });
      await other.query('commit');
      expect(await outcome).toMatchObject({
        code: 'X_JOB_DUPLICATE',
        message: expect.stringContaining('another job took its idempotency key live'),
        meta: { id: finished.id },
      });
      expect((await driver.get(finished.id))?.state).toBe('done');
      expect((await driver.get(taker.id))?.state).toBe('ready');
    } finally {
      await other.end();
    }
  });

  it('buries a lapsed final attempt on the database clock', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const queued = request({ maxAttempts: 1 });
    await driver.enqueue(queued);
    const slots = [{ queue: 'pg-q', limit: 1 }];
    await driver.claim({ workerId: 'w', slots, visibilityTimeoutMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { claimed, rescued } = await driver.claimRescuing(
      { workerId: 'w2', slots, visibilityTimeoutMs: 30_000 },
      {},
    );
    expect(claimed).toEqual([]);
    expect(rescued.buried.map((r) => `${r.id}:${r.state}`)).toEqual([`${queued.id}:dead`]);
  });
});
