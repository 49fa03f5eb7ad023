import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { JOBS_MIGRATIONS } from './all-migrations';

const STATES = ['ready', 'delayed', 'running', 'suspended', 'done', 'failed', 'dead', 'cancelled'];

/** One row of `state` (a running one with its claim), or the error the insert failed with. */
const INSERT = `
insert into x_jobs (id, run_id, name, queue, input, idempotency_key, state, max_attempts, run_at, created_at,
  updated_at, worker_id, claim, lease_expires_at)
select gen_random_uuid(), gen_random_uuid(), 'm15', 'm15-q', '{}', gen_random_uuid()::text, $1::text, 3, now(), now(),
  now(), r.worker, r.claim, r.lease
from (
  select case when $1 = 'running' then 'w' end as worker, case when $1 = 'running' then gen_random_uuid() end as claim,
    case when $1 = 'running' then now() end as lease
) r`;

describe('migration 0015: x_jobs_state_check as one array constant', () => {
  // the schema as migrations 1 … 14 left it, so 0015 is applied to a populated table here
  const db = pgJobsSpec({ migrate: false });
  const m0015 = JOBS_MIGRATIONS.find((m) => m.id === 15);

  const definition = async (): Promise<string[]> =>
    (
      await db.pool.query<{ def: string }>(
        `select pg_get_constraintdef(oid) as def from pg_constraint
         where conrelid = 'x_jobs'::regclass and conname = 'x_jobs_state_check'`,
      )
    ).rows.map((r) => r.def);
  const codeOf = async (state: string): Promise<string | undefined> => {
    try {
      await db.pool.query(INSERT, [state]);
      return undefined;
    } catch (error) {
      const { code, constraint } = error as { code?: string; constraint?: string };
      return `${code} ${constraint}`;
    }
  };

  beforeAll(async () => {
    for (const migration of JOBS_MIGRATIONS.filter((m) => m.id < 15)) {
      await db.pool.query(migration.sql);
    }
    for (const state of STATES) await db.pool.query(INSERT, [state]);
  });

  it('admits the same eight states and refuses any other with the same coded violation, before and after', async () => {
    expect(await definition()).toEqual([
      expect.stringContaining("state = ANY (ARRAY['ready'::text, 'delayed'::text"),
    ]);
    expect(await codeOf('paused')).toBe('23514 x_jobs_state_check');

    await db.pool.query(m0015!.sql);

    expect(await definition()).toEqual([
      "CHECK ((state = ANY ('{ready,delayed,running,suspended,done,failed,dead,cancelled}'::text[])))",
    ]);
    for (const state of STATES) expect(await codeOf(state)).toBeUndefined();
    expect(await codeOf('paused')).toBe('23514 x_jobs_state_check');
    expect(await codeOf('Ready')).toBe('23514 x_jobs_state_check');
    const { rows } = await db.pool.query<{ n: number }>('select count(*)::int as n from x_jobs');
    expect(rows).toEqual([{ n: 2 * STATES.length }]);
  });

  it('keeps the claim check beside it', async () => {
    expect(await codeOf('running')).toBeUndefined();
    await expect(
      db.pool.query(`update x_jobs set worker_id = null where state = 'running' and name = 'm15'`),
    ).rejects.toMatchObject({ code: '23514', constraint: 'x_jobs_claim_check' });
  });
});
