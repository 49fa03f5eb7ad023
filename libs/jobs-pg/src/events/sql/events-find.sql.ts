/**
 * One page of unexpired events named $1 published at or after $2 (epoch ms), oldest first, after the event whose id
 * is $3 (null for the first page; the cursor is read back by id so no timestamp round-trips through a float), at most
 * $4 rows, of EVERY tenant. The caller applies its match function, walking x_job_events_name_idx in
 * (published_at, id) order. A run's wait reads `SQL_EVENTS_FIND_TENANT` instead.
 */
export const SQL_EVENTS_FIND = `
select e.id, e.name, e.payload, e.tenant_id,
  extract(epoch from e.published_at) * 1000 as published_ms,
  extract(epoch from e.expires_at) * 1000 as expires_ms
from x_job_events e
where e.name = $1::text
  and e.published_at >= to_timestamp($2::float8 / 1000)
  and e.expires_at > now()
  and ($3::uuid is null
    or (e.published_at, e.id) > (select c.published_at, c.id from x_job_events c where c.id = $3::uuid))
order by e.published_at, e.id
limit $4::int`;
