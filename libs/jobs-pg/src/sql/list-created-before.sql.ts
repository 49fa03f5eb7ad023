/**
 * The rows created in a window just newer than a cursor, nearest first (the caller reverses them into a
 * newest-first page) — `SQL_LIST_BEFORE` for a created window, shaped as `SQL_LIST_CREATED` (read it for why).
 *
 * $1 queue, $2 name, $3 state, $4 tenant_id (each null = any), $5 before (an id: only rows newer than it), $6 limit,
 * $7 / $8 an id prefix's lowest and highest id (null = any), $9 created at or after, $10 created before (null =
 * unbounded), $11 / $12 the ids minted from 10 s (and 1 ms) before $9 to 10 s after $10 — `[$11, $12]`, both always
 * given.
 *
 * Returns `x_jobs` rows by id ascending: the same rows `SQL_LIST_BEFORE` answers for the same parameters.
 */
export const SQL_LIST_CREATED_BEFORE = `
with near as (
  select j.* from x_jobs j
  where j.id between $11::uuid and $12::uuid
    and j.created_at >= coalesce($9::timestamptz, '-infinity') and j.created_at < coalesce($10::timestamptz, 'infinity')
    and ($1::text is null or j.queue = $1::text)
    and ($2::text is null or j.name = $2::text)
    and ($3::text is null or j.state = $3::text)
    and ($4::text is null or j.tenant_id = $4::text)
    and j.id > $5::uuid
    and ($7::uuid is null or j.id between $7::uuid and $8::uuid)
  order by j.id asc
  limit $6::int
),
strays as (
  select j.* from x_jobs j
  where abs(date_part('epoch', j.created_at - to_timestamp((('x' || encode(substring(uuid_send(j.id) from 1 for 6), 'hex'))::bit(48)::bigint)::float8 / 1000))) > 10
    and j.created_at >= coalesce($9::timestamptz, '-infinity') and j.created_at < coalesce($10::timestamptz, 'infinity')
    and not (j.id between $11::uuid and $12::uuid)
    and ($1::text is null or j.queue = $1::text)
    and ($2::text is null or j.name = $2::text)
    and ($3::text is null or j.state = $3::text)
    and ($4::text is null or j.tenant_id = $4::text)
    and j.id > $5::uuid
    and ($7::uuid is null or j.id between $7::uuid and $8::uuid)
  order by j.id asc nulls first
  limit $6::int
)
select p.* from (select * from near union all select * from strays) p
order by p.id asc
limit $6::int
`;
