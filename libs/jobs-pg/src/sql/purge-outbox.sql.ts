/**
 * One batch of the retention sweep over the outbox's audit trail: deletes up to $4 rows published before $1, in
 * (published_at, id) order after the key ($2, $3) the previous batch ended on. A row not yet published is never
 * touched.
 *
 * $1 published before (timestamptz), $2 after published_at (timestamptz text; null = from the start), $3 after id
 * (uuid; null = from the start), $4 limit (int).
 *
 * Bounded the way `SQL_PURGE_JOBS` is: an ordered range scan of `x_outbox_published_idx` that stops at $4, `skip
 * locked`, primary-key deletes, keyset continuation. Returns `removed`, `scanned`, `last_at` and `last_id`.
 */
export const SQL_PURGE_OUTBOX = `
with doomed as (
  select o.id, o.published_at
  from x_outbox o
  where o.published_at is not null
    and o.published_at < $1::timestamptz
    and (o.published_at, o.id) > (
      coalesce($2::timestamptz, '-infinity'::timestamptz),
      coalesce($3::uuid, '00000000-0000-0000-0000-000000000000'::uuid)
    )
  order by o.published_at, o.id
  limit $4::int
  for update of o skip locked
),
gone as (
  delete from x_outbox o
  where o.id = any(array(select d.id from doomed d))
    and o.published_at is not null
  returning o.id
)
select
  (select count(*) from gone)::int as removed,
  (select count(*) from doomed)::int as scanned,
  l.published_at::text as last_at,
  l.id as last_id
from (select 1) as one
left join lateral (
  select d.published_at, d.id from doomed d order by d.published_at desc, d.id desc limit 1
) l on true
`;
