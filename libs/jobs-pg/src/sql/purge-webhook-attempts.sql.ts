/**
 * One batch of the retention sweep over the webhook ledger's attempts: deletes up to $4 attempts made before $1, in
 * (attempted_at, id) order after the key ($2, $3) the previous batch ended on. The per-endpoint counts and disabled
 * verdicts (`x_webhook_endpoints`) are never swept: a purged verdict would re-enable its endpoint.
 *
 * $1 attempted before (timestamptz), $2 after attempted_at (timestamptz text; null = from the start), $3 after id
 * (bigint; null = from the start: identities begin at 1), $4 limit (int).
 *
 * Bounded the way `SQL_PURGE_OUTBOX` is: an ordered range scan of `x_webhook_attempts_at_idx` that stops at $4, `skip
 * locked`, primary-key deletes, keyset continuation. Returns `removed`, `scanned`, `last_at` and `last_id`.
 */
export const SQL_PURGE_WEBHOOK_ATTEMPTS = `
with doomed as (
  select a.id, a.attempted_at
  from x_webhook_attempts a
  where a.attempted_at < $1::timestamptz
    and (a.attempted_at, a.id) > (
      coalesce($2::timestamptz, '-infinity'::timestamptz),
      coalesce($3::bigint, 0::bigint)
    )
  order by a.attempted_at, a.id
  limit $4::int
  for update of a skip locked
),
gone as (
  delete from x_webhook_attempts a
  where a.id = any(array(select d.id from doomed d))
  returning a.id
)
select
  (select count(*) from gone)::int as removed,
  (select count(*) from doomed)::int as scanned,
  l.attempted_at::text as last_at,
  l.id::text as last_id
from (select 1) as one
left join lateral (
  select d.attempted_at, d.id from doomed d order by d.attempted_at desc, d.id desc limit 1
) l on true
`;
