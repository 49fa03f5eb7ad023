/**
 * Re-enables a webhook endpoint and resets its consecutive failures: the app's call, never the framework's. A missing
 * row is already enabled, so an update (no upsert) is the whole of it.
 *
 * $1 endpoint id.
 */
export const SQL_WEBHOOK_ENABLE = `
update x_webhook_endpoints e set
  consecutive_failures = 0,
  disabled_at = null,
  disabled_failures = null,
  disabled_code = null,
  updated_at = now()
where e.endpoint_id = $1::text
`;
