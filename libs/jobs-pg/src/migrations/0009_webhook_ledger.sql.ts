/**
 * Migration 0009: the tables of `postgresWebhookLedger()`, the PostgreSQL `WebhookLedger` of `webhook()`.
 *
 * - `x_webhook_attempts`: one row per delivery attempt, appended before the attempt's outcome is thrown, never
 *   updated. `(endpoint_id, id)` serves an endpoint's newest attempts (`SQL_WEBHOOK_ATTEMPTS`); `(attempted_at, id)`
 *   the retention sweep's ordered range scan (`SQL_PURGE_WEBHOOK_ATTEMPTS`), which stops at its batch limit. Ids are
 *   text: an endpoint or event id is the app's, of whatever shape its tables use.
 * - `x_webhook_endpoints`: one row per endpoint that was ever attempted — its consecutive failed attempts and, once
 *   they reached `disableAfter`, when and why it was disabled. Never swept: a purged row would re-enable its endpoint,
 *   and re-enabling is the app's.
 */
export const MIGRATION_0009_WEBHOOK_LEDGER = `
create table if not exists x_webhook_attempts (
  id bigint generated always as identity primary key,
  endpoint_id text not null,
  event_id text not null,
  topic text not null,
  org_id text,
  job_id text not null,
  run_id text not null,
  attempt integer not null,
  outcome text not null
    constraint x_webhook_attempts_outcome_check
    check (outcome in ('delivered', 'failed', 'rejected', 'throttled', 'refused')),
  status integer,
  code text,
  error text,
  attempted_at timestamptz not null,
  duration_ms integer not null
);
create index if not exists x_webhook_attempts_endpoint_idx on x_webhook_attempts (endpoint_id, id);
create index if not exists x_webhook_attempts_at_idx on x_webhook_attempts (attempted_at, id);

create table if not exists x_webhook_endpoints (
  endpoint_id text primary key,
  consecutive_failures integer not null default 0,
  disabled_at timestamptz,
  disabled_failures integer,
  disabled_code text,
  updated_at timestamptz not null
);
`;
