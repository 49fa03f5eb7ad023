export {
  postgresWebhookLedger,
  WEBHOOK_ATTEMPTS_PURGE_TARGET,
  type PostgresWebhookLedger,
  type PostgresWebhookLedgerOptions,
  type WebhookRetention,
} from './pg-webhook-ledger';
export { SQL_PURGE_WEBHOOK_ATTEMPTS } from '../sql/purge-webhook-attempts.sql';
export { SQL_WEBHOOK_ATTEMPTS } from '../sql/webhook-attempts.sql';
export { SQL_WEBHOOK_DISABLE } from '../sql/webhook-disable.sql';
export { SQL_WEBHOOK_ENABLE } from '../sql/webhook-enable.sql';
export { SQL_WEBHOOK_IS_DISABLED } from '../sql/webhook-is-disabled.sql';
export { SQL_WEBHOOK_RECORD } from '../sql/webhook-record.sql';
