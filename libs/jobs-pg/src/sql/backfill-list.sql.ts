/**
 * Ledger rows, newest pass first — the one read behind every surface (`inspectBackfills`). With a name it walks
 * `x_backfills_name_idx (name, started_at desc)`; the ledger holds one row per pass, so a scan of the rest is small.
 *
 * $1 name (null: every name), $2 status (null: any), $3 at most this many rows.
 *
 * Returns the rows, by `started_at` then `id`, descending.
 */
export const SQL_BACKFILL_LIST = `
select * from x_backfills
where ($1::text is null or name = $1::text)
  and ($2::text is null or status = $2::text)
order by started_at desc, id desc
limit $3::int
`;
