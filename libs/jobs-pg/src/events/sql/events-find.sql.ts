/**
 * One page of unexpired events named $1 published at or after $2 (epoch ms), oldest first, after the cursor — the
 * event whose id is $3 and whose `published_at` is $5 (epoch MICROseconds, as `published_us` answered it: exact, no
 * float round trip; both null for the first page) — at most $4 rows, of EVERY tenant. The cursor is compared by value,
 * never read back from its row, so a page still follows one whose last event was purged meanwhile. The caller applies
 * its match function, walking x_job_events_name_idx in (published_at, id) order. A run's wait reads
 * `SQL_EVENTS_FIND_TENANT` instead.
 */
export const SQL_EVENTS_FIND = `
select e.id, e.name, e.payload, e.tenant_id,
  extract(epoch from e.published_at) * 1000 as published_ms,
  extract(epoch from e.expires_at) * 1000 as expires_ms,
  (extract(epoch from e.published_at) * 1000000)::bigint::text as published_us
from x_job_events e
where e.name = $1::text
  and e.published_at >= to_timestamp($2::float8 / 1000)
  and e.expires_at > now()
  and ($3::uuid is null
    or (e.published_at, e.id) > (timestamptz 'epoch' + $5::bigint * interval '1 microsecond', $3::uuid))
order by e.published_at, e.id
limit $4::int`;
