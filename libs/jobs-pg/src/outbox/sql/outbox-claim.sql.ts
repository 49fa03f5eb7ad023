/**
 * Claims up to $3 staged rows for claimant $2: a LEASE, stamped in the statement that locks the rows. `for update
 * skip locked` alone holds its locks only until the statement ends — under autocommit, before the caller even reads
 * the rows — so without the stamp two relays polling apart read and publish the same rows. A claimed row is
 * claimable again once its lease ($4 ms from `claimed_at`) lapsed: the relay holding it died mid-batch.
 *
 * Rows come in `staged_at, id` order — total, so every relay composes its batch the same way. A row is left out when
 * an earlier unpublished row of ITS transaction (`tx_id`) is not in this claim: held by another relay, or locked by a
 * concurrent claim that skipped ahead. So a transaction's rows are published in the order it staged them, whichever
 * relays take them. The earliest unpublished row of a transaction is never held back, so the outbox always moves.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 claimant, $3 limit, $4 lease (ms).
 *
 * Returns the claimed rows `(id, request, staged_at, claimed_by, claimed_at, attempts, tx_key)` in `staged_at, id`
 * order; `tx_key` names the staging transaction (the row's own id for a row staged before migration 0002).
 */
export const SQL_OUTBOX_CLAIM = `
with clock as (
  select coalesce($1::timestamptz, now()) as now
),
candidates as (
  select o.id, o.tx_id, o.staged_at
  from x_outbox o
  where o.published_at is null
    and o.quarantined_at is null
    and (o.claimed_at is null or o.claimed_at <= (select k.now from clock k) - $4::int * interval '1 millisecond')
  order by o.staged_at, o.id
  limit $3::int
  for update of o skip locked
),
claimable as (
  select c.id
  from candidates c
  where c.tx_id is null
     or not exists (
       select 1 from x_outbox e
       where e.tx_id = c.tx_id
         and e.published_at is null
         and (e.staged_at, e.id) < (c.staged_at, c.id)
         and not exists (select 1 from candidates t where t.id = e.id)
     )
),
claimed as (
  update x_outbox o
  set claimed_by = $2::text, claimed_at = (select k.now from clock k)
  from claimable c
  where o.id = c.id
  returning o.id, o.request, o.staged_at, o.claimed_by, o.claimed_at, o.attempts,
    coalesce(o.tx_id::text, o.id::text) as tx_key
)
select id, request, staged_at, claimed_by, claimed_at, attempts, tx_key
from claimed
order by staged_at, id
`;
