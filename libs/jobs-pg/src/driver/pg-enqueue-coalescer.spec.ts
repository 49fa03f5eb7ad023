import type { EnqueueRequest } from '@ultimat3/jobs';
import type { PgExecutor } from '../executor/pg-executor';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { idsOf, recording, rowsOf } from '../../test/recording-executor';
import { postgresJobDriver } from './pg-driver';
import { pgContext } from './pg-context';
import { coalescingEnqueue } from './pg-enqueue-coalescer';
import { statementsFor } from './statements';

const created = (r: EnqueueRequest) => ({ id: r.id, runId: r.runId, deduped: false });

describe('postgres enqueue coalescing (a shared pool)', () => {
  const db = pgJobsSpec({ poolSize: 20, emptyBeforeEach: JOB_TABLES });

  const count = async (where = 'true'): Promise<number> => {
    const { rows } = await db.pool.query<{ n: number }>(
      `select count(*)::int as n from x_jobs where ${where}`,
    );
    return rows[0]?.n ?? -1;
  };

  it('marks a pool executor shared, and a client (maybe inside BEGIN) not', async () => {
    expect(db.executor.shared).toBe(true);
    const client = await db.pool.connect();
    try {
      expect(pgPoolExecutor(client).shared).toBe(false);
      expect(pgPoolExecutor(client, { shared: true }).shared).toBe(true);
    } finally {
      client.release();
    }
  });

  it('sends a lone enqueue at once, alone: no timer in its way', async () => {
    const executor = recording(db.executor);
    const driver = postgresJobDriver({ executor });
    const lone = request();
    const pending = driver.enqueue(lone);
    expect(executor.statements).toEqual([1]); // issued before the call returned
    expect(await pending).toEqual(created(lone));
  });

  it('gathers the enqueues arriving while one is in flight into ONE statement, each answered its own', async () => {
    const executor = recording(db.executor);
    const driver = postgresJobDriver({ executor });
    const requests = Array.from({ length: 20 }, (_, i) => request({ input: { i } }));
    const results = await Promise.all(requests.map((r) => driver.enqueue(r)));
    expect(results).toEqual(requests.map(created));
    expect(executor.statements).toEqual([1, 19]);
    expect(await count()).toBe(20);
    expect((await driver.get(requests[7]!.id))?.input).toEqual({ i: 7 });
  });

  it('lets the callers a statement answered enqueue again into the next batch, not one of them ahead alone', async () => {
    const executor = recording(db.executor);
    const driver = postgresJobDriver({ executor });
    const sent: EnqueueRequest[] = [];
    // 20 callers, each enqueueing three times, the next call as soon as the last was answered
    await Promise.all(
      Array.from({ length: 20 }, async (_, caller) => {
        for (let call = 0; call < 3; call++) {
          const next = request({ input: { caller, call } });
          sent.push(next);
          expect(await driver.enqueue(next)).toEqual(created(next));
        }
      }),
    );
    // the first call alone (nothing in flight), then the 19 gathered behind it joined by the first caller's second
    // call, ... — flushed the moment a statement ended, they went 1, 19, 1, 19, 1, 19
    expect(executor.statements).toEqual([1, 20, 20, 19]);
    expect(await count()).toBe(60);
    expect((await driver.get(sent[45]!.id))?.input).toEqual(sent[45]!.input);
  });

  it('answers an id or a key repeated inside one gathered batch as if sent one after another', async () => {
    const executor = recording(db.executor);
    const driver = postgresJobDriver({ executor });
    const first = request();
    const a = request({ idempotencyKey: 'twice' });
    const b = request({ idempotencyKey: 'twice' });
    const again = { ...a };
    const results = await Promise.all([first, a, b, again].map((r) => driver.enqueue(r)));
    expect(executor.statements).toEqual([1, 3]);
    expect(results).toEqual([
      created(first),
      created(a),
      { id: a.id, runId: a.runId, deduped: true },
      { id: a.id, runId: a.runId, deduped: true },
    ]);
    expect(await count(`idempotency_key = 'twice'`)).toBe(1);
  });

  it('fails only the strict caller whose key is held, never its neighbours', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const holder = request({ idempotencyKey: 'held' });
    await driver.enqueue(holder);
    const executor = recording(db.executor);
    const coalescing = postgresJobDriver({ executor });
    const before = request();
    const strict = request({ idempotencyKey: 'held', onConflict: 'error' });
    const dedupe = request({ idempotencyKey: 'held' });
    const others = Array.from({ length: 5 }, () => request());
    const settled = await Promise.allSettled(
      [before, strict, dedupe, ...others].map((r) => coalescing.enqueue(r)),
    );
    expect(settled[1]).toMatchObject({
      status: 'rejected',
      reason: { code: 'X_JOB_DUPLICATE' },
    });
    expect(settled.filter((s) => s.status === 'fulfilled').map((s) => s.value)).toEqual([
      created(before),
      { id: holder.id, runId: holder.runId, deduped: true },
      ...others.map(created),
    ]);
    // the strict one ran alone; the six others went together (a plain insert that met the held key, then the
    // conflict-tolerant statement)
    expect([...new Set(executor.statements.filter((n) => n > 1))]).toEqual([6]);
    expect(await count()).toBe(7);
  });

  it('fails only the callers of a batch whose statement failed; later ones land', async () => {
    const doomed = new Set<string>();
    const executor = recording(db.executor, (values) => idsOf(values).some((id) => doomed.has(id)));
    const driver = postgresJobDriver({ executor });
    const lone = request();
    const batch = Array.from({ length: 3 }, () => request());
    batch.forEach((r) => doomed.add(r.id));
    const settled = await Promise.allSettled([lone, ...batch].map((r) => driver.enqueue(r)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
    expect(settled.slice(1)).toEqual(
      batch.map(() => ({
        status: 'rejected',
        reason: new Error('connection terminated unexpectedly'),
      })),
    );
    const later = Array.from({ length: 3 }, () => request());
    expect(await Promise.all(later.map((r) => driver.enqueue(r)))).toEqual(later.map(created));
    expect(await count()).toBe(4);
  });

  it('keeps a bad value its own caller’s error: the batch it broke is re-run one by one', async () => {
    const executor = recording(db.executor);
    // the driver refuses these values before any statement (the value contract); the coalescer's own isolation,
    // for a failure nothing checked ahead, is what this proves — so it is driven directly
    const driver = { enqueue: coalescingEnqueue(pgContext(executor, statementsFor())) };
    const lone = request();
    const good = request();
    const badInput = request({ input: { n: 1n } as unknown as EnqueueRequest['input'] });
    const badId = request({ id: 'not-a-uuid' });
    const last = request();
    const settled = await Promise.allSettled(
      [lone, good, badInput, badId, last].map((r) => driver.enqueue(r)),
    );
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    expect(settled[2]).toMatchObject({ reason: expect.any(TypeError) });
    expect(settled[3]).toMatchObject({ reason: { code: '22P02' } });
    expect(await count()).toBe(3);
    const checked = postgresJobDriver({ executor });
    for (const bad of [badInput, badId]) {
      await expect(checked.enqueue(bad)).rejects.toMatchObject({ code: 'X_VALUE_INVALID' });
    }
  });

  it('does not hold every enqueue behind one waiting on another transaction’s key', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      const holder = request({ idempotencyKey: 'locked' });
      await postgresJobDriver({ executor: pgPoolExecutor(client) }).enqueue(holder);
      const driver = postgresJobDriver({ executor: db.executor });
      const blocked = driver.enqueue(request({ idempotencyKey: 'locked' }));
      const others = Array.from({ length: 5 }, () => request());
      // they land while the first still waits on the open transaction
      expect(await Promise.all(others.map((r) => driver.enqueue(r)))).toEqual(others.map(created));
      await client.query('commit');
      expect(await blocked).toEqual({ id: holder.id, runId: holder.runId, deduped: true });
    } finally {
      client.release();
    }
  });

  it('never coalesces over a client that may be inside the caller’s transaction', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      const inner = pgPoolExecutor(client);
      const statements: number[] = [];
      let queue: Promise<unknown> = Promise.resolve();
      // a caller's transaction runs one statement at a time, as TypeORM's QueryRunner queues them
      const executor: PgExecutor = {
        query<R>(text: string, values: readonly unknown[]) {
          statements.push(rowsOf(values));
          const next = queue.then(() => inner.query<R>(text, values));
          queue = next.catch(() => undefined);
          return next;
        },
      };
      const driver = postgresJobDriver({ executor });
      const requests = Array.from({ length: 10 }, () => request({ idempotencyKey: 'tx' }));
      const results = await Promise.all(requests.map((r) => driver.enqueue(r)));
      // one row a statement: all ten fast inserts are sent at once, the first creates, and each of the nine that met
      // its key is then answered by SQL_ENQUEUE
      expect(statements).toEqual(Array.from({ length: 2 * requests.length - 1 }, () => 1));
      // in call order on the one connection: the first created, the rest deduped onto it
      expect(results[0]).toEqual(created(requests[0]!));
      expect(results.slice(1).every((r) => r.deduped && r.id === requests[0]!.id)).toBe(true);
      await client.query('rollback');
    } finally {
      client.release();
    }
    expect(await count()).toBe(0);
  });
});
