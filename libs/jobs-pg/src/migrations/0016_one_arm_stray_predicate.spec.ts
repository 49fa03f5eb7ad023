import { randomUUID } from 'node:crypto';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { MIGRATION_0012_CHEAP_STRAY_PREDICATE } from './0012_cheap_stray_predicate.sql';
import { MIGRATION_0016_ONE_ARM_STRAY_PREDICATE } from './0016_one_arm_stray_predicate.sql';

/** The `where` of the first `create index` in a migration: the partial index's predicate, as written. */
function predicateOf(migration: string): string {
  const match = /create index[\s\S]*?\bwhere\b([\s\S]*?);/.exec(migration);
  if (match?.[1] === undefined) throw new Error('no partial index in the migration');
  return match[1];
}

/** A UUIDv7-shaped id whose 48 time bits are `ms` (any value 0 … 2^48 - 1), the rest random. */
function idAt(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0') + randomUUID().replace(/-/g, '').slice(12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const SECOND = 1_000;
const DAY = 86_400_000;

describe('migration 0016: the stray index with a one-arm predicate', () => {
  const db = pgJobsSpec();

  it('admits exactly the rows 0012’s predicate admitted, at the 10 s edges, days away and for any uuid', async () => {
    const now = Date.UTC(2026, 11, 2, 4, 0, 0);
    const rows: { id: string; createdUs: string }[] = [];
    // created_at vs id time at and around both edges, to the microsecond, and far either side (a day and more is
    // where the difference of two instants carries days)
    for (const offsetMs of [
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
    ]) {
      for (const offsetUs of [-1, 0, 1]) {
        const createdUs = BigInt(now + offsetMs) * 1000n + BigInt(offsetUs);
        rows.push({ id: idAt(now), createdUs: createdUs.toString() });
      }
    }
    // the extremes of the 48 time bits, and uuids that were never UUIDv7 (a random v4's first bits are any time)
    const extremes = [
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
    ];
    for (const id of [...extremes, ...Array.from({ length: 500 }, () => randomUUID())]) {
      rows.push({ id, createdUs: (BigInt(now) * 1000n).toString() });
    }
    await db.pool.query('create table probe (id uuid not null, created_at timestamptz not null)');
    await db.pool.query(
      `insert into probe (id, created_at)
       select i, to_timestamp(0) + u * interval '1 microsecond' from unnest($1::uuid[], $2::int8[]) as r(i, u)`,
      [rows.map((r) => r.id), rows.map((r) => r.createdUs)],
    );

    const before = predicateOf(MIGRATION_0012_CHEAP_STRAY_PREDICATE);
    const oneArm = predicateOf(MIGRATION_0016_ONE_ARM_STRAY_PREDICATE);
    expect(oneArm).not.toEqual(before);
    const { rows: counts } = await db.pool.query<{ differ: number; strays: number; total: number }>(
      `select count(*) filter (where (${before}) is distinct from (${oneArm}))::int as differ,
         count(*) filter (where ${oneArm})::int as strays, count(*)::int as total
       from probe`,
    );
    expect(counts[0]).toEqual({ differ: 0, strays: expect.any(Number), total: rows.length });
    // both sides of the margin are exercised: some rows are strays, some are not
    expect(counts[0]!.strays).toBeGreaterThan(500);
    expect(counts[0]!.strays).toBeLessThan(rows.length - 10);
  });

  it('leaves x_jobs with the new stray index and without 0012’s', async () => {
    const { rows } = await db.pool.query<{ indexname: string; indexdef: string }>(
      `select indexname, indexdef from pg_indexes where tablename = 'x_jobs' and indexname like '%stray%'`,
    );
    expect(rows.map((r) => r.indexname)).toEqual(['x_jobs_created_stray3_idx']);
    expect(rows[0]!.indexdef).toContain('abs(date_part');
  });
});
