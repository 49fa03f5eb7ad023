/**
 * Migration 0012: migration 0010's stray index again, as `x_jobs_created_stray2_idx`, with the same rows in it and a
 * predicate that reads the id's first 48 bits from its 16 bytes rather than from its text.
 *
 * A partial index's predicate is evaluated for every row inserted into `x_jobs` and for every update that is not HOT
 * — every claim, ack, retry and settle, since each moves `state`, which other indexes cover — though it admits almost
 * no row. 0010 wrote the id time as `('x' || translate(left(id::text, 13), '-', ''))::bit(48)::bigint`: the uuid
 * formatted as 36 characters of text, cut and stripped of its dash by the multibyte-aware string functions, then
 * parsed back as hex. Here it is `('x' || encode(substring(uuid_send(id) from 1 for 6), 'hex'))::bit(48)::bigint`:
 * the 6 leading bytes of the uuid's binary form written as 12 hex digits and parsed the same way. The value is the
 * same bigint for every uuid (the bytes of `uuid_send` are the id's 32 hex digits in order), and everything around it
 * is unchanged, float rounding included, so the index holds exactly the rows 0010's did.
 * `uuid_extract_timestamp()` would be cheaper still, but exists only from PostgreSQL 17; `uuid_send`, `substring`,
 * `encode` and the casts exist on every version this package runs on. Measured over 1,000,000 rows (EXPLAIN
 * ANALYZE of the predicate, both arms evaluated, less a scan evaluating none; medians of 5, interleaved), per 1,000
 * rows: 0.73 ms before, 0.31 after on PostgreSQL 15; 0.70 and 0.36 on 18 (docs/performance.md, "Bulk").
 *
 * `SQL_LIST_CREATED` and `SQL_LIST_CREATED_BEFORE` repeat the new predicate verbatim (the planner uses a partial
 * index only for a query that implies its predicate). The new index is built first (`if not exists`: a DBA may create
 * it `concurrently` by hand under the same name beforehand), then 0010's is dropped, in the tables' schema.
 *
 * Building an index reads the whole table and locks it against writes while it builds (the predicate is evaluated
 * once per row, about a third of a microsecond on the 2-core VM; the entries are the strays, few): on a large
 * `x_jobs`, apply it at a quiet moment, or build it by hand first as above.
 */
export const MIGRATION_0012_CHEAP_STRAY_PREDICATE = `
create index if not exists x_jobs_created_stray2_idx
  on x_jobs (created_at)
  where created_at < to_timestamp((('x' || encode(substring(uuid_send(id) from 1 for 6), 'hex'))::bit(48)::bigint - 10000)::float8 / 1000)
     or created_at > to_timestamp((('x' || encode(substring(uuid_send(id) from 1 for 6), 'hex'))::bit(48)::bigint + 10000)::float8 / 1000);

-- The index it replaces lives in x_jobs's schema, which need not be on the search_path: drop it there.
do $drop$
begin
  execute format(
    'drop index if exists %I.x_jobs_created_stray_idx',
    (select n.nspname from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = 'x_jobs'::regclass)
  );
end
$drop$;
`;
