/**
 * The rows just newer than a cursor, nearest first (the caller reverses them into a newest-first page).
 *
 * $1 queue, $2 name, $3 state, $4 tenant_id (each null = any), $5 before (an id: only rows newer than it), $6 limit.
 *
 * Returns `x_jobs` rows by id ascending.
 */
export const SQL_LIST_BEFORE = `
select j.* from x_jobs j
where ($1::text is null or j.queue = $1::text)
  and ($2::text is null or j.name = $2::text)
  and ($3::text is null or j.state = $3::text)
  and ($4::text is null or j.tenant_id = $4::text)
  and j.id > $5::uuid
order by j.id asc
limit $6::int
`;
