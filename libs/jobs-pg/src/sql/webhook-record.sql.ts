/**
 * Records one webhook delivery attempt and answers the endpoint's consecutive failed attempts after it, in ONE
 * statement: the attempt row is appended and the endpoint's count moved together, so no attempt is recorded without
 * being counted (or counted without being recorded). A delivered attempt resets the count to 0; any other outcome adds
 * one. The upsert's row lock serialises two deliveries to one endpoint that finish at once, so neither count is lost.
 *
 * $1 endpoint id, $2 event id, $3 topic, $4 org id (null: no tenant), $5 job id, $6 run id, $7 attempt (int),
 * $8 outcome (`delivered` | `failed` | `rejected` | `throttled` | `refused`), $9 HTTP status (int, null: no answer),
 * $10 error code, $11 error text, $12 attempted at (timestamptz), $13 duration ms (int). Returns
 * `consecutive_failures`.
 */
export const SQL_WEBHOOK_RECORD = `
with recorded as (
  insert into x_webhook_attempts (
    endpoint_id, event_id, topic, org_id, job_id, run_id, attempt, outcome, status, code, error, attempted_at,
    duration_ms
  )
  values (
    $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::int, $8::text, $9::int, $10::text, $11::text,
    $12::timestamptz, $13::int
  )
)
insert into x_webhook_endpoints as e (endpoint_id, consecutive_failures, updated_at)
values ($1::text, case when $8::text = 'delivered' then 0 else 1 end, $12::timestamptz)
on conflict (endpoint_id) do update set
  consecutive_failures = case when $8::text = 'delivered' then 0 else e.consecutive_failures + 1 end,
  updated_at = excluded.updated_at
returning e.consecutive_failures
`;
