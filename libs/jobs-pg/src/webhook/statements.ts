import { qualify } from '../schema';
import { SQL_PURGE_WEBHOOK_ATTEMPTS } from '../sql/purge-webhook-attempts.sql';
import { SQL_WEBHOOK_ATTEMPTS } from '../sql/webhook-attempts.sql';
import { SQL_WEBHOOK_DISABLE } from '../sql/webhook-disable.sql';
import { SQL_WEBHOOK_ENABLE } from '../sql/webhook-enable.sql';
import { SQL_WEBHOOK_IS_DISABLED } from '../sql/webhook-is-disabled.sql';
import { SQL_WEBHOOK_RECORD } from '../sql/webhook-record.sql';

const STATEMENTS = {
  record: SQL_WEBHOOK_RECORD,
  isDisabled: SQL_WEBHOOK_IS_DISABLED,
  disable: SQL_WEBHOOK_DISABLE,
  enable: SQL_WEBHOOK_ENABLE,
  attempts: SQL_WEBHOOK_ATTEMPTS,
  purge: SQL_PURGE_WEBHOOK_ATTEMPTS,
} as const;

/** Every statement the webhook ledger runs, by name, with its tables placed in the ledger's schema. */
export type WebhookStatements = { readonly [K in keyof typeof STATEMENTS]: string };

/** The webhook ledger's statements for `schema` (default: unqualified, found through `search_path`), built once. */
export function webhookStatementsFor(schema?: string): WebhookStatements {
  const entries = Object.entries(STATEMENTS).map(([key, sql]) => [key, qualify(sql, schema)]);
  return Object.fromEntries(entries) as WebhookStatements;
}
