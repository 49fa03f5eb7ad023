import { uuidv7 } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import type { PoolClient } from 'pg';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresJobDriver } from '../driver/pg-driver';
import { statementsFor, type Statements } from '../driver/statements';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { WAKE_SLOT_MS } from '../wake/wake-session';

/**
 * The enqueue statements are prepared once per connection, and the plan cache must settle on their generic plan: a
 * statement it keeps planning custom is planned again on every execution (~1 ms of backend CPU for `SQL_ENQUEUE`,
 * more than the insert). It keeps custom plans when the generic plan's estimate is worse than theirs — as it was
 * while a custom plan could fold the wake slot's bounds from a null `$1` and `now()` (one row of the id range) and the
 * generic plan could not (0.5 % of the table): invisible on an empty table, every execution once x_jobs had
 * statistics with many rows.
 */
describe('the enqueue statements settle on a generic plan over a table with statistics', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  it('plans each of SQL_ENQUEUE_INSERT(_PLAIN), SQL_ENQUEUE_QUIET, SQL_ENQUEUE and the batch statements 5 times, then reuses its generic plan', async () => {
    // 200,000 finished rows of one name and queue, analyzed: the statistics a busy queue's table has
    await db.executor.query(
      `insert into x_jobs (id, run_id, name, queue, input, idempotency_key, state, max_attempts, run_at, created_at,
         updated_at, finished_at)
       select gen_random_uuid(), gen_random_uuid(), 'busy', 'pg-q', '{}', 'seed:' || g, 'done', 3, now(), now(), now(),
         now()
       from generate_series(1, 200000) g`,
      [],
    );
    await db.executor.query('analyze x_jobs', []);

    const client: PoolClient = await db.pool.connect();
    try {
      // one connection, as a pool's would be, with the driver's coalescing and optimistic paths
      const driver = postgresJobDriver({ executor: pgPoolExecutor(client, { shared: true }) });
      const held = request({ name: 'busy', idempotencyKey: 'held' });
      await driver.enqueue(held);
      for (let i = 0; i < 8; i++) {
        await driver.enqueue(request({ name: 'busy' })); // SQL_ENQUEUE_INSERT_PLAIN or _QUIET
        await driver.enqueueMany([request({ name: 'busy' }), request({ name: 'busy' })]); // SQL_ENQUEUE_BATCH
      }
      for (let i = 0; i < 8; i++) {
        await driver.enqueue(request({ name: 'busy', idempotencyKey: 'held' })); // SQL_ENQUEUE
        // meets the held key: SQL_ENQUEUE_FRESH, then SQL_ENQUEUE_MANY for the deduped request
        await driver.enqueueMany([
          request({ name: 'busy' }),
          request({ name: 'busy', idempotencyKey: 'held' }),
        ]);
      }
      // a frozen clock and ids minted at it: a slot each, SQL_ENQUEUE_INSERT_PLAIN (the wake's statement over a pool);
      // then one slot, SQL_ENQUEUE_QUIET after its first (the slot is known)
      const clock = frozenClock(Date.UTC(2026, 0, 1));
      const frozen = postgresJobDriver({
        executor: pgPoolExecutor(client, { shared: true }),
        clock,
      });
      const due = () => request({ name: 'busy', id: uuidv7(clock.now()), runAt: clock.now() });
      for (let i = 0; i < 8; i++) {
        await frozen.enqueue(due());
        await clock.advance(WAKE_SLOT_MS);
      }
      for (let i = 0; i < 9; i++) await frozen.enqueue(due());
      // SQL_ENQUEUE_INSERT: the fast insert inside a caller's transaction
      const inside = postgresJobDriver({ executor: pgPoolExecutor(client, { shared: false }) });
      await client.query('begin');
      for (let i = 0; i < 8; i++) await inside.enqueue(request({ name: 'busy' }));
      await client.query('commit');
      const sql = statementsFor();
      const names = new Map<string, keyof Statements>(
        (
          [
            'enqueueInsert',
            'enqueueInsertPlain',
            'enqueueQuiet',
            'enqueue',
            'enqueueBatch',
            'enqueueFresh',
            'enqueueMany',
          ] as const
        ).map((key) => [sql[key].trim(), key]),
      );
      const { rows } = await client.query<{
        statement: string;
        generic_plans: string;
        custom_plans: string;
      }>('select statement, generic_plans, custom_plans from pg_prepared_statements');
      const plans = Object.fromEntries(
        rows
          .filter((r) => names.has(r.statement.trim()))
          .map((r) => [
            names.get(r.statement.trim()),
            { generic: Number(r.generic_plans) > 0, custom: Number(r.custom_plans) },
          ]),
      );
      // each ran at least 6 times: 5 custom plans, then the generic one kept
      expect(plans).toEqual({
        enqueueInsert: { generic: true, custom: 5 },
        enqueueInsertPlain: { generic: true, custom: 5 },
        enqueueQuiet: { generic: true, custom: 5 },
        enqueue: { generic: true, custom: 5 },
        enqueueBatch: { generic: true, custom: 5 },
        enqueueFresh: { generic: true, custom: 5 },
        enqueueMany: { generic: true, custom: 5 },
      });
    } finally {
      client.release();
    }
  });
});
