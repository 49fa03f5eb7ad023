/**
 * `SQL_EVENTS_FIND` for ONE tenant: a page of unexpired events named $1 published under tenant $5 ('' for events
 * published under none — no tenant is the empty string), at or after $2 (epoch ms), after the cursor — the event whose
 * id is $3 and whose `published_at` is $6 (epoch microseconds, as `published_us` answered it; both null for the first
 * page), compared by value so a purged cursor event stops nothing — at most $4 rows, oldest first. It walks
 * x_job_events_tenant_idx, so another tenant's events of the same name are never read, let alone matched.
 */
export const SQL_EVENTS_FIND_TENANT = `
select e.id, e.name, e.payload, e.tenant_id,
  extract(epoch from e.published_at) * 1000 as published_ms,
  extract(epoch from e.expires_at) * 1000 as expires_ms,
  (extract(epoch from e.published_at) * 1000000)::bigint::text as published_us
from x_job_events e
where e.name = $1::text
  and coalesce(e.tenant_id, '') = $5::text
  and e.published_at >= to_timestamp($2::float8 / 1000)
  and e.expires_at > now()
  and ($3::uuid is null
    or (e.published_at, e.id) > (timestamptz 'epoch' + $6::bigint * interval '1 microsecond', $3::uuid))
order by e.published_at, e.id
limit $4::int`;
