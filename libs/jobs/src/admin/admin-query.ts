import type { JobState } from '../driver/job-row';
import type { JobListFilter } from '../driver/introspection';
import type { BackfillLedgerFilter, BackfillStatus } from '../backfill/ledger';
import type { BulkAction, BulkFilter } from '../operator/bulk';
import { MAX_BACKFILL_LIST_LIMIT } from '../backfill/ledger-order';
import { ValueInvalidError } from '../errors/value-errors';
import { enumProblem, integerProblem, timeProblem } from '../values/scalars';

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

/** `value` itself, or `X_VALUE_INVALID` naming `key` with the `problem` found in it. */
function checked<T>(key: string, value: T, problem: string | undefined, fix: string): T {
  if (problem !== undefined) throw new ValueInvalidError(key, problem, fix);
  return value;
}

const BACKFILL_STATUSES: readonly BackfillStatus[] = ['running', 'completed', 'failed'];

/**
 * `?name&status&limit` as a {@link BackfillLedgerFilter}: a status other than the three, or a limit that is not a whole
 * number from 1 to 1,000, is `X_VALUE_INVALID` (what `x db backfill --list` refuses), never an empty list or a 500.
 */
export function backfillFilter(query: AdminQuery): BackfillLedgerFilter {
  const status = text(query, 'status');
  const limit = int(query, 'limit');
  return defined<BackfillLedgerFilter>({
    name: text(query, 'name'),
    status:
      status === undefined
        ? undefined
        : checked('status', status, enumProblem(status, BACKFILL_STATUSES), 'Pass ?status=failed.'),
    limit:
      limit === undefined
        ? undefined
        : checked(
            'limit',
            limit,
            integerProblem(limit, 1, MAX_BACKFILL_LIST_LIMIT),
            `Pass ?limit=100 (at most ${MAX_BACKFILL_LIST_LIMIT}).`,
          ),
  });
}

/** `?sinceMs` as epoch ms, when given: anything but whole epoch ms in years 0001–9999 is `X_VALUE_INVALID`. */
export function sinceOf(query: AdminQuery): number | undefined {
  const since = int(query, 'sinceMs');
  if (since === undefined) return undefined;
  return checked(
    'sinceMs',
    since,
    timeProblem(since),
    'Pass ?sinceMs=<epoch ms>, or leave it out.',
  );
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

/**
 * An optional string field of a JSON body: absent, null or empty is undefined; any other value that is not a string is
 * `X_VALUE_INVALID`, never dropped (a retry whose `fromStep` was dropped would replay the stored step it was sent to
 * redo).
 */
export function bodyText(body: unknown, key: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') {
    throw new ValueInvalidError(
      key,
      `must be a string (got ${typeof value})`,
      `Send { "${key}": "…" }.`,
    );
  }
  return value;
}
