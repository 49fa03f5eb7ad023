/**
 * The rows just newer than a cursor, nearest first (the caller reverses them into a newest-first page).
 *
 * $1 queue, $2 name, $3 state, $4 tenant_id (each null = any), $5 before (an id: only rows newer than it), $6 limit,
 * $7 / $8 the lowest and highest id an id prefix spans (the prefix padded with 0 and with f: a range over the primary
 * key, never a text match over every id; null = any), $9 created at or after, $10 created before (null = unbounded).
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
  and ($7::uuid is null or j.id between $7::uuid and $8::uuid)
  and ($9::timestamptz is null or j.created_at >= $9::timestamptz)
  and ($10::timestamptz is null or j.created_at < $10::timestamptz)
order by j.id asc
limit $6::int
`;
