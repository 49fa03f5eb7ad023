import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { judgeStrays, predicateOf } from '../../test/stray-probe';
import { MIGRATION_0010_CREATED_STRAYS } from './0010_created_strays.sql';
import { MIGRATION_0012_CHEAP_STRAY_PREDICATE } from './0012_cheap_stray_predicate.sql';
import { JOBS_MIGRATIONS } from './all-migrations';

describe('migration 0012: the stray index with a cheaper predicate', () => {
  // the schema as migrations 1 … 12 left it (0016 replaces this index in turn)
  const db = pgJobsSpec({ migrate: false });

  beforeAll(async () => {
    for (const migration of JOBS_MIGRATIONS.filter((m) => m.id <= 12)) {
      await db.pool.query(migration.sql);
    }
  });

  it('admits exactly the rows 0010’s predicate admitted, at the 10 s edges and for any uuid', async () => {
    const old = predicateOf(MIGRATION_0010_CREATED_STRAYS);
    const cheap = predicateOf(MIGRATION_0012_CHEAP_STRAY_PREDICATE);
    expect(cheap).not.toEqual(old);
    // id time vs created_at at and around both edges, to the microsecond, and far either side
    const offsetsMs = [-3_600_000, -10_001, -10_000, -9_999, 0, 9_999, 10_000, 10_001, 3_600_000];
    const verdicts = await judgeStrays(db.pool, offsetsMs, old, cheap);
    const total = offsetsMs.length * 3 + 502;
    expect(verdicts).toEqual({ differ: 0, strays: expect.any(Number), total });
    // both sides of the margin are exercised: some rows are strays, some are not
    expect(verdicts.strays).toBeGreaterThan(500);
    expect(verdicts.strays).toBeLessThan(total - 10);
  });

  it('leaves x_jobs with the new stray index and without 0010’s', async () => {
    const { rows } = await db.pool.query<{ indexname: string; indexdef: string }>(
      `select indexname, indexdef from pg_indexes where tablename = 'x_jobs' and indexname like '%stray%'`,
    );
    expect(rows.map((r) => r.indexname)).toEqual(['x_jobs_created_stray2_idx']);
    expect(rows[0]!.indexdef).toContain('uuid_send(id)');
  });
});
