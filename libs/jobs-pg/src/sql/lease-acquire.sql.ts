/**
 * Takes a fleet slot of a key for a holder, or renews the one it holds. A slot is free when no row holds it or its
 * row expired; the lowest free slot below the limit is taken, overwriting an expired row in place.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 key, $3 holder, $4 limit (slots 0 … limit - 1),
 * $5 ttl in ms.
 *
 * Returns one row `(renewed, taken, candidate)`: the slot renewed, the slot taken, and the free slot this statement
 * aimed at. All null: the key is full. `candidate` set but nothing taken: a concurrent acquire took that slot first
 * (its row was committed after this statement's snapshot) — run it again.
 */
export const SQL_LEASE_ACQUIRE = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
renewed as (
  update x_job_leases l set expires_at = k.now + $5::float8 * interval '1 millisecond'
  from clock k
  where l.key = $2::text and l.holder = $3::text and l.expires_at > k.now
  returning l.slot
),
free as (
  select s.slot
  from generate_series(0, $4::int - 1) as s(slot)
  cross join clock k
  where not exists (select 1 from renewed)
    and not exists (
      select 1 from x_job_leases l
      where l.key = $2::text and l.slot = s.slot and l.expires_at > k.now
    )
  order by s.slot
  limit 1
),
taken as (
  insert into x_job_leases as l (key, slot, holder, expires_at, acquired_at)
  select $2::text, f.slot, $3::text, k.now + $5::float8 * interval '1 millisecond', k.now
  from free f cross join clock k
  on conflict (key, slot) do update set
    holder = excluded.holder,
    expires_at = excluded.expires_at,
    acquired_at = excluded.acquired_at
  where l.expires_at <= excluded.acquired_at
  returning l.slot
)
select
  (select min(r.slot) from renewed r) as renewed,
  (select t.slot from taken t) as taken,
  (select f.slot from free f) as candidate
`;
