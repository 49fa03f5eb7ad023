/**
 * One page of jobs, newest first, optionally older than a cursor.
 *
 * $1 queue, $2 name, $3 state, $4 tenant_id (each null = any), $5 after (an id: only rows older than it; null = from
 * the newest), $6 limit.
 *
 * Returns `x_jobs` rows by id descending (UUIDv7 ids sort by creation).
 */
export const SQL_LIST = `
select j.* from x_jobs j
where ($1::text is null or j.queue = $1::text)
  and ($2::text is null or j.name = $2::text)
  and ($3::text is null or j.state = $3::text)
  and ($4::text is null or j.tenant_id = $4::text)
  and ($5::uuid is null or j.id < $5::uuid)
order by j.id desc
limit $6::int
`;
