/**
 * Publishes one event, stamped with the database's now(). $1 id (uuid), $2 name, $3 payload (JSON text, kept verbatim
 * in a `json` column: migration 0008), $4 time to live in ms, $5 tenant (null: published under none). Returns the row
 * with its times as epoch ms.
 */
export const SQL_EVENT_PUBLISH = `
insert into x_job_events (id, name, payload, tenant_id, published_at, expires_at)
values ($1::uuid, $2::text, $3::json, $5::text, now(), now() + $4::bigint * interval '1 millisecond')
returning id, name, payload, tenant_id,
  extract(epoch from published_at) * 1000 as published_ms,
  extract(epoch from expires_at) * 1000 as expires_ms`;
