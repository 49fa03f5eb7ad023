import { InvariantError } from '@ultimat3/jobs';

/** Every table this package owns. Statements name them unqualified; {@link qualify} places them in a schema. */
export const JOBS_TABLES = [
  'x_jobs',
  'x_job_steps',
  'x_job_leases',
  'x_job_events',
  'x_outbox',
  'x_backfills',
  'x_scheduler_state',
  'x_scheduler_leader',
  'x_workers',
  'x_job_counters',
  'x_queue_pauses',
  'x_task_pauses',
  'x_webhook_attempts',
  'x_webhook_endpoints',
  'x_job_hand_offs',
  'x_migrations',
] as const;

/**
 * A whole-word table name. `\b` does not break between `x_jobs` and `_claim_idx` (`_` is a word character), so index
 * and constraint names and the `x_jobs_wake` channel are never rewritten.
 */
const TABLE_NAME = new RegExp(`\\b(${JOBS_TABLES.join('|')})\\b`, 'g');

/** A schema name we accept: lower-case, unquoted-identifier shape, at most 63 bytes (PostgreSQL truncates past it). */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** The schema name as a quoted identifier, after a strict check; the only text this package ever splices into SQL. */
export function quoteSchema(schema: string): string {
  if (!IDENTIFIER.test(schema)) {
    throw new InvariantError(
      `jobs-pg: schema ${JSON.stringify(schema)} is not a plain identifier.`,
      'Use lower-case letters, digits and underscores, starting with a letter or underscore, at most 63 characters.',
    );
  }
  return `"${schema}"`;
}

/**
 * `sql` with every table of this package qualified by `schema` (`x_jobs` → `"jobs".x_jobs`). No schema (the
 * default) answers `sql` unchanged: the tables are then found through `search_path`, as the statements read verbatim.
 */
export function qualify(sql: string, schema?: string): string {
  if (schema === undefined) return sql;
  const quoted = quoteSchema(schema);
  return sql.replace(TABLE_NAME, (table) => `${quoted}.${table}`);
}
