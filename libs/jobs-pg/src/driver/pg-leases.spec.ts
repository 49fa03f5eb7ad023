import { frozenClock } from '@ultimat3/jobs/testing';
import { until } from '../../../../test/until';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { postgresJobDriver } from './pg-driver';

const TTL = 10_000;

/**
 * `SQL_LEASE_ACQUIRE` when two acquires race for the last free slot: both see it free in their snapshots, one inserts
 * first, and the other's insert meets that row once it commits. The slot is live then, so the second must not take it
 * over: one holder per slot, whatever the interleaving.
 */
describe('fleet leases on PostgreSQL: two acquires racing for one slot (driven clock)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  it('the acquire that waited on the winner answers false, and the winner keeps the slot', async () => {
    const clock = frozenClock(Date.UTC(2026, 0, 1));
    const client = await db.pool.connect();
    try {
      // the winner's acquire, left uncommitted inside a transaction of its own connection
      await client.query('begin');
      const winner = postgresJobDriver({ executor: pgPoolExecutor(client), clock });
      expect(await winner.leases.acquire('k', 'a', 1, TTL)).toBe(true);

      const other = postgresJobDriver({ executor: db.executor, clock });
      const losing = other.leases.acquire('k', 'b', 1, TTL);
      // the other acquire saw the slot free and now waits on the winner's row
      await until(async () => {
        const { rows } = await db.pool.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock'`,
        );
        return rows[0]?.n === 1;
      });
      await client.query('commit');

      expect(await losing).toBe(false);
      expect((await other.leases.holders('k')).map((h) => [h.holder, h.slot])).toEqual([['a', 0]]);
    } finally {
      await client.query('rollback').catch(() => undefined);
      client.release();
    }
  });
});
