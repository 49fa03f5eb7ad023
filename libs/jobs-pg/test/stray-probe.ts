import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';

/** The `where` of the first `create index` in a migration: the partial index's predicate, as written. */
export function predicateOf(migration: string): string {
  const match = /create index[\s\S]*?\bwhere\b([\s\S]*?);/.exec(migration);
  if (match?.[1] === undefined) throw new Error('no partial index in the migration');
  return match[1];
}

/** A UUIDv7-shaped id whose 48 time bits are `ms` (any value 0 … 2^48 - 1), the rest random. */
function idAt(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0') + randomUUID().replace(/-/g, '').slice(12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** How two stray-index predicates judged the probe rows: rows they disagree on, rows `b` admits, all rows. */
export interface StrayVerdicts {
  differ: number;
  strays: number;
  total: number;
}

/**
 * Fills a `probe (id, created_at)` table with rows whose created_at sits `offsetsMs` from the id's time, each to
 * ±1 µs, plus the extremes of the 48 time bits and 500 random v4 uuids (whose first bits are any time), then counts
 * how predicates `a` and `b` (as {@link predicateOf} reads them) judge those rows.
 */
export async function judgeStrays(
  pool: Pool,
  offsetsMs: readonly number[],
  a: string,
  b: string,
): Promise<StrayVerdicts> {
  const now = Date.UTC(2026, 11, 2, 4, 0, 0);
  const rows: { id: string; createdUs: string }[] = [];
  for (const offsetMs of offsetsMs) {
    for (const offsetUs of [-1, 0, 1]) {
      const createdUs = BigInt(now + offsetMs) * 1000n + BigInt(offsetUs);
      rows.push({ id: idAt(now), createdUs: createdUs.toString() });
    }
  }
  const extremes = ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff'];
  for (const id of [...extremes, ...Array.from({ length: 500 }, () => randomUUID())]) {
    rows.push({ id, createdUs: (BigInt(now) * 1000n).toString() });
  }
  await pool.query('create table probe (id uuid not null, created_at timestamptz not null)');
  await pool.query(
    `insert into probe (id, created_at)
     select i, to_timestamp(0) + u * interval '1 microsecond' from unnest($1::uuid[], $2::int8[]) as r(i, u)`,
    [rows.map((r) => r.id), rows.map((r) => r.createdUs)],
  );
  const { rows: counts } = await pool.query<StrayVerdicts>(
    `select count(*) filter (where (${a}) is distinct from (${b}))::int as differ,
       count(*) filter (where ${b})::int as strays, count(*)::int as total
     from probe`,
  );
  return counts[0]!;
}
