import { Client } from 'pg';
import { errorCodeOf, MAX_TASK_FIRES, type EnqueueRequest } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresJobDriver } from '../driver/pg-driver';
import type { PgExecutor } from '../executor/pg-executor';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { migrate } from '../migrations/migrate';
import { postgresSchedulerState } from './pg-scheduler-state';

/** An executor that counts the statements it ran. */
function counting(executor: PgExecutor): PgExecutor & { readonly count: () => number } {
  let n = 0;
  return {
    query(text, values) {
      n += 1;
      return executor.query(text, values);
    },
    count: () => n,
  };
}

describe('postgresSchedulerState on PostgreSQL', () => {
  const db = pgJobsSpec({ emptyBeforeEach: [...JOB_TABLES, 'x_scheduler_state', 'x_task_pauses'] });
  const clock = frozenClock();

  const fire = (task: string, requests: EnqueueRequest[], previousWatermarkMs = 0) => ({
    task,
    occurrenceMs: 1_000,
    watermarkMs: 1_000,
    previousWatermarkMs,
    requests,
  });

  it('fires in ONE statement, and loads any number of tasks in one', async () => {
    const executor = counting(db.executor);
    const state = postgresSchedulerState({ executor, clock });
    await state.skipTo('a', 0, undefined);
    const before = executor.count();
    const result = await state.fire(fire('a', [request(), request(), request()]));
    expect(result.fired).toBe(true);
    expect(executor.count() - before).toBe(1);
    await state.load(['a', 'b', 'c', 'd']);
    expect(executor.count() - before).toBe(2);
  });

  it('answers a live key held by another run as deduped, and fires', async () => {
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const state = postgresSchedulerState({ executor: db.executor, clock });
    const held = request({ idempotencyKey: 'task:a:1000:0:k' });
    await driver.enqueue(held);
    await state.skipTo('a', 0, undefined);
    const result = await state.fire(
      fire('a', [{ ...request(), idempotencyKey: held.idempotencyKey }]),
    );
    expect(result).toEqual({
      fired: true,
      results: [{ id: held.id, runId: held.runId, deduped: true }],
    });
    expect(await state.load(['a'])).toEqual(new Map([['a', 1_000]]));
  });

  it('answers a request whose id a stored row holds as deduped (as enqueueMany does), and fires', async () => {
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const state = postgresSchedulerState({ executor: db.executor, clock });
    const stored = request({ idempotencyKey: 'another-key' });
    await driver.enqueue(stored);
    await state.skipTo('a', 0, undefined);
    const result = await state.fire(fire('a', [{ ...request(), id: stored.id }]));
    expect(result).toEqual({
      fired: true,
      results: [{ id: stored.id, runId: stored.runId, deduped: true }],
    });
  });

  it("refuses the whole fire when an onConflict: 'error' request meets a live key: nothing moves", async () => {
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const state = postgresSchedulerState({ executor: db.executor, clock });
    const held = request({ idempotencyKey: 'strict-key' });
    await driver.enqueue(held);
    await state.skipTo('a', 0, undefined);
    const other = request();
    const strict: EnqueueRequest = {
      ...request(),
      idempotencyKey: 'strict-key',
      onConflict: 'error',
    };
    // a strict request that met no key stands before it: the error names the one that did
    const fresh: EnqueueRequest = { ...request(), onConflict: 'error' };
    const error: unknown = await state
      .fire(fire('a', [fresh, other, strict]))
      .catch((e: unknown) => e);
    expect(errorCodeOf(error)).toBe('X_JOB_DUPLICATE');
    expect(error).toMatchObject({ meta: { id: held.id, runId: held.runId } });
    expect(await driver.get(fresh.id)).toBeUndefined();
    expect(await driver.get(other.id)).toBeUndefined();
    expect(await state.load(['a'])).toEqual(new Map([['a', 0]]));
    expect(await state.taskFires()).toEqual([]);
  });

  it('answers a row a concurrent transaction committed under the same key: the watermark moved, no second row', async () => {
    const state = postgresSchedulerState({ executor: db.executor, clock });
    await state.skipTo('a', 0, undefined);
    const other = new Client({ connectionString: db.url });
    await other.connect();
    try {
      await other.query('begin');
      const held = request({ idempotencyKey: 'task:a:1000:0:race' });
      await postgresJobDriver({ executor: pgPoolExecutor(other), clock }).enqueue(held);
      const firing = state.fire(fire('a', [{ ...request(), idempotencyKey: held.idempotencyKey }]));
      // the fire's insert waits on the uncommitted row's index entry; then that row commits
      for (let waited = 0; ; waited++) {
        const { rows } = await db.pool.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
           where wait_event_type = 'Lock' and datname = current_database()`,
        );
        if ((rows[0]?.n ?? 0) > 0) break;
        if (waited > 400) throw new Error('the fire never waited on the concurrent row');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await other.query('commit');
      expect(await firing).toEqual({
        fired: true,
        results: [{ id: held.id, runId: held.runId, deduped: true }],
      });
      expect(await state.load(['a'])).toEqual(new Map([['a', 1_000]]));
      const { rows } = await db.pool.query<{ n: number }>('select count(*)::int as n from x_jobs');
      expect(rows[0]?.n).toBe(1);
    } finally {
      await other.end();
    }
  });

  it('never enqueues one occurrence twice under 16 racing fires', async () => {
    const state = postgresSchedulerState({ executor: db.executor, clock });
    await state.skipTo('a', 0, undefined);
    const results = await Promise.all(
      Array.from({ length: 16 }, () =>
        state.fire(fire('a', [{ ...request(), idempotencyKey: 'task:a:1000:0:x' }])),
      ),
    );
    expect(results.filter((r) => r.fired)).toHaveLength(1);
    const { rows } = await db.pool.query<{ n: number }>('select count(*)::int as n from x_jobs');
    expect(rows[0]?.n).toBe(1);
  });

  it('announces each queue it put a due row on, once, on x_jobs_wake', async () => {
    const listener = new Client({ connectionString: db.url });
    await listener.connect();
    try {
      const heard: string[] = [];
      listener.on('notification', (n) => heard.push(n.payload ?? ''));
      await listener.query('listen x_jobs_wake');
      const state = postgresSchedulerState({ executor: db.executor });
      await state.skipTo('a', 0, undefined);
      const now = Date.now();
      const due = [
        request({ runAt: now }),
        request({ runAt: now }),
        request({ queue: 'later', runAt: now + 60_000 }),
      ];
      expect((await state.fire(fire('a', due))).fired).toBe(true);
      await listener.query('select 1'); // a round trip: the notification arrives before its answer
      expect(heard).toEqual(['pg-q']);
    } finally {
      await listener.end();
    }
  });

  it(`answers at most ${MAX_TASK_FIRES} fires`, async () => {
    await db.pool.query(
      `insert into x_scheduler_state (task, watermark, last_fired_occurrence, last_fired_at, updated_at)
       select 't' || lpad(g::text, 5, '0'), now(), now(), now(), now() from generate_series(1, $1::int) g`,
      [MAX_TASK_FIRES + 5],
    );
    const state = postgresSchedulerState({ executor: db.executor });
    const fires = await state.taskFires();
    expect(fires).toHaveLength(MAX_TASK_FIRES);
    expect(fires[0]?.task).toBe('t00001');
  });

  it('lives in a named schema', async () => {
    const executor = db.executor;
    await migrate(executor, { schema: 'sched_schema' });
    const state = postgresSchedulerState({ executor, clock, schema: 'sched_schema' });
    await state.skipTo('a', 0, undefined);
    const r = request();
    expect((await state.fire(fire('a', [r]))).fired).toBe(true);
    const { rows } = await db.pool.query('select id from sched_schema.x_jobs where id = $1', [
      r.id,
    ]);
    expect(rows).toHaveLength(1);
    expect(() => postgresSchedulerState({ executor, schema: 'Bad-Name' })).toThrow();
  });
});
