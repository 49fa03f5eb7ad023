/**
 * Migration 0016: migration 0012's stray index again, as `x_jobs_created_stray3_idx`, with the same rows in it and a
 * predicate that reads the id's time once instead of twice.
 *
 * A partial index's predicate is prepared (planned and compiled) by every statement that writes `x_jobs` — every
 * enqueue, and every claim, ack, retry and settle, since each moves `state`, which other indexes cover — and evaluated
 * for every row it writes, though it admits almost no row. 0012 wrote it as two arms,
 * `created_at < to_timestamp((idms - 10000)::float8 / 1000) or created_at > to_timestamp((idms + 10000)::float8 /
 * 1000)`, each reading the id's 48 time bits `idms` from its bytes as hex text: every function twice. Here the
 * distance between the two instants is taken once, `abs(date_part('epoch', created_at - to_timestamp(idms::float8 /
 * 1000))) > 10`, and `idms` is read once. Every function in it is immutable on every version this package runs on
 * (`timestamptz - timestamptz`, `date_part(text, interval)`, `abs(float8)`; `uuid_extract_timestamp()` would be
 * cheaper still but exists only from PostgreSQL 17).
 *
 * The same rows, exactly: `to_timestamp(idms / 1000.0)` is the id's millisecond to the microsecond (the float's error
 * is far below half a microsecond), the difference of two timestamps is an exact count of microseconds, and the
 * epoch of an interval of at most a day is that count over 10^6, so `> 10` holds exactly when `created_at` is more
 * than 10 s before or after the id's time — 0012's two arms, to the microsecond edge. Larger distances are far from
 * the edge. (An infinite `created_at` — none of this package's statements writes one — makes the subtraction fail on
 * PostgreSQL 15 and 16 where 0012's comparison admitted the row.)
 *
 * Measured with callgrind on PostgreSQL 18 (backend instructions, runs of 50 and 250 one-row prepared inserts into
 * `x_jobs` differenced; 2 and 10 inserts of 1,000 rows): a one-row insert 481,600 → 448,700 (the index's predicate
 * ~82,000 → ~49,000 of it), a 1,000-row insert 119.1 M → 118.1 M.
 *
 * `SQL_LIST_CREATED` and `SQL_LIST_CREATED_BEFORE` repeat the new predicate verbatim (the planner uses a partial
 * index only for a query that implies its predicate). The new index is built first (`if not exists`: a DBA may
 * create it `concurrently` by hand under the same name beforehand), then 0012's is dropped, in the tables' schema.
 * Building an index reads the whole table and holds off writes to `x_jobs` while it builds: on a large `x_jobs`,
 * apply it at a quiet moment, or build it by hand first as above. Workers of the build before keep working through
 * it: no statement names an index, and their list statements fall back to other plans while 0012's index is gone.
 */
export const MIGRATION_0016_ONE_ARM_STRAY_PREDICATE = `
create index if not exists x_jobs_created_stray3_idx
  on x_jobs (created_at)
  where abs(date_part('epoch', created_at - to_timestamp((('x' || encode(substring(uuid_send(id) from 1 for 6), 'hex'))::bit(48)::bigint)::float8 / 1000))) > 10;

-- The index it replaces lives in x_jobs's schema, which need not be on the search_path: drop it there.
do $drop$
begin
  execute format(
    'drop index if exists %I.x_jobs_created_stray2_idx',
    (select n.nspname from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = 'x_jobs'::regclass)
  );
end
$drop$;
`;
