/**
 * Whether the planner's statistics of `x_jobs` are those of a young table: `pg_class.reltuples` — the row count the
 * last ANALYZE or VACUUM found, -1 before the first — below $1 (float4, rows). The driver asks it once it has
 * enqueued or claimed that many rows, and analyses the table when it answers true (`SQL_JOBS_ANALYZE`; why:
 * `pg-young-table.ts`). Reads one catalog row, takes no lock on the table. Returns one row, `young` bool.
 */
export const SQL_JOBS_STATS_YOUNG = `
select c.reltuples < $1::float4 as young
from pg_class c
where c.oid = 'x_jobs'::regclass
`;
