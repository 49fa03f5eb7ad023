/**
 * One page of jobs created in a window, newest first, optionally older than a cursor — `SQL_LIST` for a created
 * window, reached through the primary key rather than by filtering every row.
 *
 * $1 queue, $2 name, $3 state, $4 tenant_id (each null = any), $5 after (an id: only rows older than it; null = from
 * the newest), $6 limit, $7 / $8 an id prefix's lowest and highest id (null = any), $9 created at or after, $10
 * created before (null = unbounded), $11 / $12 the ids minted from 10 s (and 1 ms) before $9 to 10 s after $10 —
 * `[$11, $12]`, both always given (all zeros / all f's for an open end).
 *
 * Returns `x_jobs` rows by id descending: the same rows `SQL_LIST` answers for the same parameters.
 *
 * Two branches, each ordered by id and cut at the limit, merged:
 * - `near`: a backward walk of the primary key over `[$11, $12]`, with `created_at` rechecked exactly. A row whose id
 *   time is within 10 s of its `created_at` (nearly every row) and whose `created_at` is in the window has its id
 *   there, so the walk reads the window's ids plus at most 10 s of ids either side — not the table.
 * - `strays`: the rows in the window whose id is outside `[$11, $12]`, hence more than 10 s from their `created_at`,
 *   read from `x_jobs_created_stray3_idx` (migration 0016), whose predicate is repeated verbatim so the planner may use
 *   it. Few rows are in it: jobs published late from an outbox, enqueues in long transactions, hand-written ids.
 * Together they hold every row in the window once. The bounds are `coalesce`d rather than `$n is null or …` so a
 * generic plan of the prepared statement still scans the stray index by range.
 */
export const SQL_LIST_CREATED = `
with near as (
  select j.* from x_jobs j
  where j.id between $11::uuid and $12::uuid
    and j.created_at >= coalesce($9::timestamptz, '-infinity') and j.created_at < coalesce($10::timestamptz, 'infinity')
    and ($1::text is null or j.queue = $1::text)
    and ($2::text is null or j.name = $2::text)
    and ($3::text is null or j.state = $3::text)
    and ($4::text is null or j.tenant_id = $4::text)
    and ($5::uuid is null or j.id < $5::uuid)
    and ($7::uuid is null or j.id between $7::uuid and $8::uuid)
  order by j.id desc
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
    and ($5::uuid is null or j.id < $5::uuid)
    and ($7::uuid is null or j.id between $7::uuid and $8::uuid)
  order by j.id desc nulls last
  limit $6::int
)
select p.* from (select * from near union all select * from strays) p
order by p.id desc
limit $6::int
`;
