/**
 * One webhook endpoint's newest attempts, newest first: a backward range scan of `x_webhook_attempts_endpoint_idx`
 * that stops at the limit. Ordered by the identity (append order), not by `attempted_at`, which is the sender's clock.
 *
 * $1 endpoint id, $2 limit (int). Times come back as epoch ms.
 */
export const SQL_WEBHOOK_ATTEMPTS = `
select a.endpoint_id, a.event_id, a.topic, a.org_id, a.job_id, a.run_id, a.attempt, a.outcome, a.status, a.code,
  a.error, floor(extract(epoch from a.attempted_at) * 1000)::float8 as attempted_at_ms, a.duration_ms
from x_webhook_attempts a
where a.endpoint_id = $1::text
order by a.endpoint_id desc, a.id desc
limit $2::int
`;
