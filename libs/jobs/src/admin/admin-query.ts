import type { JobState } from '../driver/job-row';
import type { JobListFilter } from '../driver/introspection';
import type { BackfillLedgerFilter, BackfillStatus } from '../backfill/ledger';
import type { BulkAction, BulkFilter } from '../operator/bulk';
import { ValueInvalidError } from '../errors/value-errors';

/** A query string as the platform parses it. */
export type AdminQuery = Readonly<Record<string, unknown>>;

function text(query: AdminQuery, key: string): string | undefined {
  const value = query[key];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') {
    throw new ValueInvalidError(key, 'must be given once', `Send ?${key}=… once.`);
  }
  return value;
}

function int(query: AdminQuery, key: string): number | undefined {
  const value = text(query, key);
  if (value === undefined) return undefined;
  // left unchecked here on purpose beyond being a number: the projection's own bounds refuse it with its code
  return /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
}

/** Copies the defined entries only (the filters are `exactOptionalPropertyTypes`). */
function defined<T extends object>(entries: Record<string, unknown>): T {
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined)) as T;
}

/** `?queue&name&state&tenantId&idPrefix&createdFrom&createdTo&limit&after&before` as a {@link JobListFilter}. */
export function jobListFilter(query: AdminQuery): JobListFilter {
  return defined<JobListFilter>({
    queue: text(query, 'queue'),
    name: text(query, 'name'),
    state: text(query, 'state') as JobState | undefined,
    tenantId: text(query, 'tenantId'),
    idPrefix: text(query, 'idPrefix'),
    createdFrom: int(query, 'createdFrom'),
    createdTo: int(query, 'createdTo'),
    limit: int(query, 'limit'),
    after: text(query, 'after'),
    before: text(query, 'before'),
  });
}

/** `?name&status&limit` as a {@link BackfillLedgerFilter}. */
export function backfillFilter(query: AdminQuery): BackfillLedgerFilter {
  return defined<BackfillLedgerFilter>({
    name: text(query, 'name'),
    status: text(query, 'status') as BackfillStatus | undefined,
    limit: int(query, 'limit'),
  });
}

/** `?sinceMs` as a number, when given. */
export function sinceOf(query: AdminQuery): number | undefined {
  return int(query, 'sinceMs');
}

/** `?job` (required) of a counters read. */
export function counterJob(query: AdminQuery): string {
  const job = text(query, 'job');
  if (job === undefined) {
    throw new ValueInvalidError('job', 'is required', 'Pass ?job=<job name>.');
  }
  return job;
}

const BULK_ACTIONS: readonly BulkAction[] = ['requeue', 'remove', 'promote'];
/** The fields a bulk call walks: a list field (`idPrefix`, `createdFrom`, a cursor) would be ignored by it. */
const BULK_FILTER_FIELDS: readonly string[] = ['state', 'queue', 'name', 'tenantId'];

/**
 * A bulk request body `{ action, filter: { state, queue?, name?, tenantId? } }`, its shape checked: a filter field a
 * bulk call does not walk is refused, never dropped, so a write never covers more rows than the filter it was sent.
 */
export function bulkRequest(body: unknown): { action: BulkAction; filter: BulkFilter } {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const action = b.action as BulkAction;
  const filter = b.filter;
  if (
    !BULK_ACTIONS.includes(action) ||
    typeof filter !== 'object' ||
    filter === null ||
    Array.isArray(filter)
  ) {
    throw new ValueInvalidError(
      'bulk',
      'must be { action: "requeue" | "remove" | "promote", filter: { state, … } }',
      'Send the action and the filter the preview showed.',
    );
  }
  const extra = Object.keys(filter).filter((key) => !BULK_FILTER_FIELDS.includes(key));
  if (extra.length > 0) {
    throw new ValueInvalidError(
      'bulk.filter',
      `takes state, queue, name and tenantId only (got ${extra.join(', ')})`,
      'A bulk call walks one state narrowed by queue, job name and tenant: send only those.',
    );
  }
  return { action, filter: filter as BulkFilter };
}

/** An optional string field of a JSON body. */
export function bodyText(body: unknown, key: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
