/**
 * Takes a row the relay could not publish out of every claim — FENCED on the claimant: only a row $2 still holds,
 * unpublished and not already quarantined. It counts the failed attempt, keeps the error ($3) and is stamped
 * `X_OUTBOX_QUARANTINED`. Every unpublished row ITS transaction staged after it goes with it as
 * `X_OUTBOX_HELD_BEHIND`, naming the row it waits on: a transaction's later rows never publish without its earlier
 * ones (no other relay can hold them — a claim never hands out a transaction's later rows while an earlier one is
 * unpublished and outside that claim).
 *
 * $1 id (uuid), $2 claimant, $3 error text, $4 now (timestamptz; null = the database's `now()`).
 *
 * Returns the ids quarantined `(id)`: the row first, then the rows held behind it in `staged_at, id` order; none when
 * the fence missed.
 */
export const SQL_OUTBOX_QUARANTINE = `
with failed as (
  update x_outbox o
  set quarantined_at = coalesce($4::timestamptz, now()),
      quarantine_code = 'X_OUTBOX_QUARANTINED',
      attempts = o.attempts + 1,
      last_error = $3::text,
      claimed_by = null,
      claimed_at = null
  where o.id = $1::uuid
    and o.claimed_by = $2::text
    and o.published_at is null
    and o.quarantined_at is null
  returning o.id, o.tx_id, o.staged_at
),
behind as (
  update x_outbox o
  set quarantined_at = coalesce($4::timestamptz, now()),
      quarantine_code = 'X_OUTBOX_HELD_BEHIND',
      last_error = 'held behind quarantined row ' || f.id::text,
      claimed_by = null,
      claimed_at = null
  from failed f
  where o.tx_id = f.tx_id
    and (o.staged_at, o.id) > (f.staged_at, f.id)
    and o.published_at is null
    and o.quarantined_at is null
  returning o.id, o.staged_at
)
select q.id from (
  select f.id, 0 as pos, f.staged_at from failed f
  union all
  select b.id, 1 as pos, b.staged_at from behind b
) q
order by q.pos, q.staged_at, q.id
`;
