import { qualify } from '../schema';
import { SQL_PURGE_OUTBOX } from '../sql/purge-outbox.sql';
import { SQL_OUTBOX_BACKLOG } from './sql/outbox-backlog.sql';
import { SQL_OUTBOX_CLAIM } from './sql/outbox-claim.sql';
import { SQL_OUTBOX_MARK_PUBLISHED } from './sql/outbox-mark-published.sql';
import { SQL_OUTBOX_QUARANTINE } from './sql/outbox-quarantine.sql';
import { SQL_OUTBOX_QUARANTINED } from './sql/outbox-quarantined.sql';
import { SQL_OUTBOX_RELEASE } from './sql/outbox-release.sql';
import { SQL_OUTBOX_RESTORE } from './sql/outbox-restore.sql';
import { SQL_OUTBOX_RETAINED } from './sql/outbox-retained.sql';
import { SQL_OUTBOX_STAGE } from './sql/outbox-stage.sql';
import { SQL_OUTBOX_STAGE_MANY } from './sql/outbox-stage-many.sql';

const STATEMENTS = {
  stage: SQL_OUTBOX_STAGE,
  stageMany: SQL_OUTBOX_STAGE_MANY,
  claim: SQL_OUTBOX_CLAIM,
  markPublished: SQL_OUTBOX_MARK_PUBLISHED,
  release: SQL_OUTBOX_RELEASE,
  quarantine: SQL_OUTBOX_QUARANTINE,
  quarantined: SQL_OUTBOX_QUARANTINED,
  restore: SQL_OUTBOX_RESTORE,
  retained: SQL_OUTBOX_RETAINED,
  backlog: SQL_OUTBOX_BACKLOG,
  purge: SQL_PURGE_OUTBOX,
} as const;

/** Every statement the outbox store runs, by name, with its table placed in the store's schema. */
export type OutboxStatements = { readonly [K in keyof typeof STATEMENTS]: string };

/** The outbox statements for `schema` (default: unqualified, found through `search_path`), built once. */
export function outboxStatementsFor(schema?: string): OutboxStatements {
  const entries = Object.entries(STATEMENTS).map(([key, sql]) => [key, qualify(sql, schema)]);
  return Object.fromEntries(entries) as OutboxStatements;
}
