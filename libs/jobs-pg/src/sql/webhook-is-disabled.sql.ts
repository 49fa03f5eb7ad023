/**
 * Whether a webhook endpoint is disabled: asked before every socket, so it is a primary-key probe of
 * `x_webhook_endpoints`. An endpoint never attempted has no row and is enabled.
 *
 * $1 endpoint id. Returns one row, `disabled` (bool).
 */
export const SQL_WEBHOOK_IS_DISABLED = `
select exists (
  select 1 from x_webhook_endpoints e where e.endpoint_id = $1::text and e.disabled_at is not null
) as disabled
`;
