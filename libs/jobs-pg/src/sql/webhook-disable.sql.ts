/**
 * Disables a webhook endpoint. Idempotent: an endpoint already disabled keeps the time and the reason of its first
 * disable (two deliveries tipping it at once write one verdict). An upsert, so a ledger an app fills by hand can
 * disable an endpoint it never recorded.
 *
 * $1 endpoint id, $2 consecutive failures (int), $3 disabled at (timestamptz), $4 the tipping attempt's code.
 */
export const SQL_WEBHOOK_DISABLE = `
insert into x_webhook_endpoints as e (
  endpoint_id, consecutive_failures, disabled_at, disabled_failures, disabled_code, updated_at
)
values ($1::text, $2::int, $3::timestamptz, $2::int, $4::text, $3::timestamptz)
on conflict (endpoint_id) do update set
  disabled_at = coalesce(e.disabled_at, excluded.disabled_at),
  disabled_failures = case when e.disabled_at is null then excluded.disabled_failures else e.disabled_failures end,
  disabled_code = case when e.disabled_at is null then excluded.disabled_code else e.disabled_code end,
  updated_at = excluded.updated_at
`;
