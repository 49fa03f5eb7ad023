import type { PgExecutor } from '../executor/pg-executor';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresJobDriver } from './pg-driver';
import { CAUTIOUS_BATCHES } from './pg-enqueue';
import { statementsFor } from './statements';

/** An executor that counts the statements it runs. */
function counting(executor: PgExecutor): PgExecutor & { statements: number } {
  const counted = {
    statements: 0,
    query<R>(text: string, values: readonly unknown[]) {
      counted.statements += 1;
      return executor.query<R>(text, values);
    },
  };
  return counted;
}

/** A shared executor that names the statements it runs: `batch` (the optimistic insert), `fresh`, `many`, or `other`. */
function naming(executor: PgExecutor): PgExecutor & { names: string[] } {
  const sql = statementsFor();
  const nameOf = (text: string): string =>
    text === sql.enqueueBatch
      ? 'batch'
      : text === sql.enqueueFresh
        ? 'fresh'
        : text === sql.enqueueMany
          ? 'many'
          : 'other';
  const named = {
    shared: true,
    names: [] as string[],
    query<R>(text: string, values: readonly unknown[]) {
      named.names.push(nameOf(text));
      return executor.query<R>(text, values);
    },
  };
  return named;
}

describe('postgres enqueue (database clock, a pool of 20)', () => {
  const db = pgJobsSpec({ poolSize: 20, emptyBeforeEach: JOB_TABLES });

  it('answers every one of 64 concurrent identical enqueues "created" or the holder’s id', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const requests = Array.from({ length: 64 }, () => request({ idempotencyKey: 'burst' }));
    const results = await Promise.all(requests.map((r) => driver.enqueue(r)));
    const created = results.filter((r) => !r.deduped);
    expect(created).toHaveLength(1);
    expect(new Set(results.map((r) => `${r.id}/${r.runId}`)).size).toBe(1);
    const { rows } = await db.pool.query<{ n: number }>('select count(*)::int as n from x_jobs');
    expect(rows[0]?.n).toBe(1);
  });

  it("answers 64 concurrent strict enqueues one 'created' and X_JOB_DUPLICATE for the rest", async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const requests = Array.from({ length: 64 }, () =>
      request({ idempotencyKey: 'strict', onConflict: 'error' }),
    );
    const settled = await Promise.allSettled(requests.map((r) => driver.enqueue(r)));
    const codes = settled.map((s) =>
      s.status === 'fulfilled' ? 'created' : (s.reason as { code?: string }).code,
    );
    expect(codes.filter((c) => c === 'created')).toHaveLength(1);
    expect(codes.filter((c) => c === 'X_JOB_DUPLICATE')).toHaveLength(63);
  });

  /** Enqueues `key` inside an open transaction, then races a pool enqueue of the same key against its end. */
  const raceOpenTransaction = async (end: 'commit' | 'rollback') => {
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      const first = request({ idempotencyKey: 'in-flight' });
      await postgresJobDriver({ executor: pgPoolExecutor(client) }).enqueue(first);
      const second = request({ idempotencyKey: 'in-flight' });
      const executor = counting(db.executor);
      const pending = postgresJobDriver({ executor }).enqueue(second);
      // wait until the second enqueue is blocked on the first one's uncommitted key
      let blocked = false;
      for (let i = 0; i < 200 && !blocked; i++) {
        const { rows } = await db.pool.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        blocked = (rows[0]?.n ?? 0) > 0;
        if (!blocked) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(blocked).toBe(true);
      await client.query(end);
      return { first, second, result: await pending, statements: executor.statements };
    } finally {
      client.release();
    }
  };

  it('answers the holder when the competing transaction commits while the enqueue waits on it', async () => {
    const { first, result, statements } = await raceOpenTransaction('commit');
    expect(result).toEqual({ id: first.id, runId: first.runId, deduped: true });
    // its snapshot predates the commit, so it ran once more to read the holder
    expect(statements).toBe(2);
  });

  it('creates the row when the competing transaction rolls back: no phantom holder (Oban #1087)', async () => {
    const { second, result, statements } = await raceOpenTransaction('rollback');
    expect(result).toEqual({ id: second.id, runId: second.runId, deduped: false });
    expect(statements).toBe(1);
    const driver = postgresJobDriver({ executor: db.executor });
    expect((await driver.get(second.id))?.state).toBe('ready');
  });

  it('writes 1,000 rows with enqueueMany in ONE statement', async () => {
    const executor = counting(db.executor);
    const driver = postgresJobDriver({ executor });
    const requests = Array.from({ length: 1_000 }, (_, i) =>
      request({ input: { i, text: `row ${i}`, nested: [i, { deep: true }] } }),
    );
    const results = await driver.enqueueMany(requests);
    expect(executor.statements).toBe(1);
    expect(results).toEqual(requests.map((r) => ({ id: r.id, runId: r.runId, deduped: false })));
    const { rows } = await db.pool.query<{ n: number }>(
      `select count(*)::int as n from x_jobs where state = 'ready'`,
    );
    expect(rows[0]?.n).toBe(1_000);
    expect((await driver.get(requests[999]!.id))?.input).toEqual({
      i: 999,
      text: 'row 999',
      nested: [999, { deep: true }],
    });
  });

  it('gives 8 concurrent overlapping batches one row per key and one answer per key', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const keys = Array.from({ length: 50 }, (_, i) => `shared:${i}`);
    const batches = Array.from({ length: 8 }, () =>
      keys.map((key) => request({ idempotencyKey: key })),
    );
    const answers = await Promise.all(batches.map((batch) => driver.enqueueMany(batch)));
    const { rows } = await db.pool.query<{ n: number }>('select count(*)::int as n from x_jobs');
    expect(rows[0]?.n).toBe(50);
    keys.forEach((_, k) => {
      const ids = new Set(answers.map((batch) => batch[k]?.id));
      expect(ids.size).toBe(1);
      expect(answers.filter((batch) => batch[k]?.deduped === false)).toHaveLength(1);
    });
  });

  it('takes back the whole batch when a strict request meets a live key', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const held = request({ idempotencyKey: 'held' });
    await driver.enqueue(held);
    const fresh = request();
    const strict = request({ idempotencyKey: 'held', onConflict: 'error' });
    await expect(driver.enqueueMany([fresh, strict])).rejects.toMatchObject({
      code: 'X_JOB_DUPLICATE',
      meta: { id: held.id, runId: held.runId, state: 'ready' },
    });
    expect(await driver.get(fresh.id)).toBeUndefined();
  });

  it('refuses a strict request losing its key to an earlier request of the same batch', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const first = request({ idempotencyKey: 'same' });
    const second = request({ idempotencyKey: 'same', onConflict: 'error' });
    await expect(driver.enqueueMany([first, second])).rejects.toMatchObject({
      code: 'X_JOB_DUPLICATE',
      meta: { id: first.id, runId: first.runId },
    });
    expect(await driver.get(first.id)).toBeUndefined();
  });

  it('inserts a batch that collides with nothing in ONE plain statement', async () => {
    const executor = counting(db.executor);
    const driver = postgresJobDriver({ executor });
    const batch = Array.from({ length: 50 }, () => request());
    const answers = await driver.enqueueMany(batch);
    expect(executor.statements).toBe(1);
    expect(answers).toEqual(batch.map((r) => ({ id: r.id, runId: r.runId, deduped: false })));
  });

  it('answers the requests the fast path could not insert from the full statement, in order', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const stored = request();
    await driver.enqueue(stored);
    const holder = request({ idempotencyKey: 'held' });
    await driver.enqueue(holder);
    const executor = counting(db.executor);
    const fresh = request();
    const sameId = request({ id: stored.id });
    const sameKey = request({ idempotencyKey: 'held' });
    const answers = await postgresJobDriver({ executor }).enqueueMany([sameId, fresh, sameKey]);
    expect(executor.statements).toBe(2);
    expect(answers).toEqual([
      { id: stored.id, runId: stored.runId, deduped: true },
      { id: fresh.id, runId: fresh.runId, deduped: false },
      { id: holder.id, runId: holder.runId, deduped: true },
    ]);
  });

  it('over a shared pool, lands a batch in ONE plain insert, judges one meeting a stored row as before, and sends the next batches the conflict-tolerant way for a while', async () => {
    const executor = naming(db.executor);
    const driver = postgresJobDriver({ executor });
    const created = (r: ReturnType<typeof request>) => ({
      id: r.id,
      runId: r.runId,
      deduped: false,
    });
    const first = [request(), request()];
    expect(await driver.enqueueMany(first)).toEqual(first.map(created));
    expect(executor.names).toEqual(['batch']);

    executor.names.length = 0;
    const fresh = request();
    const again = request({ idempotencyKey: first[0]!.idempotencyKey });
    expect(await driver.enqueueMany([fresh, again])).toEqual([
      created(fresh),
      { id: first[0]!.id, runId: first[0]!.runId, deduped: true },
    ]);
    expect(executor.names).toEqual(['batch', 'fresh', 'many']);
    expect(await driver.get(again.id)).toBeUndefined();

    executor.names.length = 0;
    for (let i = 0; i < CAUTIOUS_BATCHES; i++) {
      const batch = [request(), request()];
      expect(await driver.enqueueMany(batch)).toEqual(batch.map(created));
    }
    expect(executor.names).toEqual(Array.from({ length: CAUTIOUS_BATCHES }, () => 'fresh'));
    executor.names.length = 0;
    await driver.enqueueMany([request(), request()]);
    expect(executor.names).toEqual(['batch']);
  });

  it('stamps a row due now ready, and one due later delayed, on the database clock', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const now = request({ runAt: Date.now() - 1_000 });
    const later = request({ runAt: Date.now() + 3_600_000 });
    await driver.enqueueMany([now, later]);
    expect((await driver.get(now.id))?.state).toBe('ready');
    expect((await driver.get(later.id))?.state).toBe('delayed');
  });
});
