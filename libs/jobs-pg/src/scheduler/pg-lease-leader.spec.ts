import { SCHEDULER_LEASE_KEY } from '@ultimat3/jobs';
import { resetJobTables } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresLeaseLeader } from './pg-lease-leader';

describe('postgresLeaseLeader on the database clock', () => {
  const db = pgJobsSpec();
  beforeEach(() => resetJobTables(db.executor));

  const lapse = () =>
    db.pool.query(`update x_job_leases set expires_at = now() - interval '1 millisecond'`);

  it('takes a free lease, renews only its own, and never steals it back once another took it', async () => {
    const a = postgresLeaseLeader({ executor: db.executor, holderId: 'a' });
    const b = postgresLeaseLeader({ executor: db.executor, holderId: 'b' });
    expect(await a.acquire()).toBe(true);
    expect(await b.acquire()).toBe(false);
    expect(await a.acquire()).toBe(true); // the renewal

    await lapse(); // a stalled past its TTL
    expect(await b.acquire()).toBe(true);
    expect(await a.acquire()).toBe(false); // renews "where holder = me": finds out, takes nothing
    const { rows } = await db.pool.query<{ holder: string }>(
      'select holder from x_job_leases where key = $1',
      [SCHEDULER_LEASE_KEY],
    );
    expect(rows).toEqual([{ holder: 'b' }]);

    await a.release(); // not the holder: a no-op
    expect(await a.acquire()).toBe(false);
    await b.release();
    expect(await a.acquire()).toBe(true);
  });

  it("stamps the expiry on the database's now(), holds no advisory lock, and picks a random holder id", async () => {
    const leader = postgresLeaseLeader({ executor: db.executor, ttlMs: 30_000 });
    expect(await leader.acquire()).toBe(true);
    const { rows } = await db.pool.query<{ ms: number; locks: number }>(
      `select (extract(epoch from (l.expires_at - now())) * 1000)::float8 as ms,
         (select count(*)::int from pg_locks
          where locktype = 'advisory'
            and database = (select oid from pg_database where datname = current_database())) as locks
       from x_job_leases l where l.key = $1`,
      [SCHEDULER_LEASE_KEY],
    );
    expect(rows[0]!.ms).toBeGreaterThan(28_000);
    expect(rows[0]!.ms).toBeLessThanOrEqual(30_000);
    expect(rows[0]!.locks).toBe(0);
    const short = postgresLeaseLeader({ executor: db.executor, key: 'x:other', ttlMs: 5_000 });
    expect(await short.acquire()).toBe(true);
    const { rows: own } = await db.pool.query<{ ms: number }>(
      `select (extract(epoch from (expires_at - now())) * 1000)::float8 as ms
       from x_job_leases where key = 'x:other'`,
    );
    expect(own).toHaveLength(1);
    expect(own[0]!.ms).toBeGreaterThan(3_000);
    expect(own[0]!.ms).toBeLessThanOrEqual(5_000);
    const other = postgresLeaseLeader({ executor: db.executor });
    expect(other.holderId).not.toBe(leader.holderId);
    expect(leader.holderId).toMatch(/^scheduler-[0-9a-f-]{36}$/);
  });
});
