import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { judgeStrays, predicateOf } from '../../test/stray-probe';
import { MIGRATION_0012_CHEAP_STRAY_PREDICATE } from './0012_cheap_stray_predicate.sql';
import { MIGRATION_0016_ONE_ARM_STRAY_PREDICATE } from './0016_one_arm_stray_predicate.sql';

const SECOND = 1_000;
const DAY = 86_400_000;

describe('migration 0016: the stray index with a one-arm predicate', () => {
  const db = pgJobsSpec();

  it('admits exactly the rows 0012’s predicate admitted, at the 10 s edges, days away and for any uuid', async () => {
    const before = predicateOf(MIGRATION_0012_CHEAP_STRAY_PREDICATE);
    const oneArm = predicateOf(MIGRATION_0016_ONE_ARM_STRAY_PREDICATE);
    expect(oneArm).not.toEqual(before);
    // created_at vs id time at and around both edges, to the microsecond, and far either side (a day and more is
    // where the difference of two instants carries days)
    const offsetsMs = [
      -400 * DAY,
      -DAY - 10 * SECOND,
      -3_600_000,
      -10_001,
      -10_000,
      -9_999,
      0,
      9_999,
      10_000,
      10_001,
      3_600_000,
      DAY + 10 * SECOND,
      400 * DAY,
    ];
    const verdicts = await judgeStrays(db.pool, offsetsMs, before, oneArm);
    const total = offsetsMs.length * 3 + 502;
    expect(verdicts).toEqual({ differ: 0, strays: expect.any(Number), total });
    // both sides of the margin are exercised: some rows are strays, some are not
    expect(verdicts.strays).toBeGreaterThan(500);
    expect(verdicts.strays).toBeLessThan(total - 10);
  });

  it('leaves x_jobs with the new stray index and without 0012’s', async () => {
    const { rows } = await db.pool.query<{ indexname: string; indexdef: string }>(
      `select indexname, indexdef from pg_indexes where tablename = 'x_jobs' and indexname like '%stray%'`,
    );
    expect(rows.map((r) => r.indexname)).toEqual(['x_jobs_created_stray3_idx']);
    expect(rows[0]!.indexdef).toContain('abs(date_part');
  });
});
