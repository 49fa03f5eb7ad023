import { identifierProblem } from '../values/text';
import { JobDeclarationInvalidError } from '../errors/declaration-errors';
import { integerProblem } from '../values/scalars';

/** Longest concurrency key: an id, never a payload. */
export const MAX_CONCURRENCY_KEY_LENGTH = 200;

/**
 * The largest declared cap. Every attempt hands it to its lease store: PostgreSQL's takes it as an `int` and walks that
 * many slots for a free one, so a limit past 2^31 - 1 fails every acquire there, and a vast one costs each a long scan.
 */
export const MAX_CONCURRENCY_LIMIT = 100_000;

/** A fleet-wide cap: a number caps the job; `{ key, limit, whenBusy }` caps it per key. */
export type JobConcurrency<I> =
  | number
  | {
      /** The lease this run counts under; deterministic from the input. */
      readonly key: (input: I) => string;
      /** Max in-flight runs sharing one key (a whole number from 1 to {@link MAX_CONCURRENCY_LIMIT}). */
      readonly limit: number;
      /** `'wait'` (default) keeps the run ready; `'fail'` settles it failed with `X_JOB_KEY_BUSY`. */
      readonly whenBusy?: 'wait' | 'fail';
    };

/** A checked concurrency declaration. */
export interface ResolvedConcurrency {
  /** Max in-flight runs: of the job, or of one key when `keyed`. */
  readonly limit: number;
  /** Whether the cap applies per key (`{ key, limit }`) rather than to the whole job. */
  readonly keyed: boolean;
  /** `'wait'` keeps a run ready while the cap is full; `'fail'` settles it failed with `X_JOB_KEY_BUSY`. */
  readonly whenBusy: 'wait' | 'fail';
}

/** A declared cap: a whole number from 1 to {@link MAX_CONCURRENCY_LIMIT}, or X_JOB_DECLARATION_INVALID. */
function limitOf(job: string, field: string, value: unknown): number {
  const problem = integerProblem(value, 1, MAX_CONCURRENCY_LIMIT);
  if (problem !== undefined) throw new JobDeclarationInvalidError(job, field, problem);
  return value as number;
}

/** Checks a concurrency declaration at `job()`. */
export function resolveConcurrency(job: string, value: unknown): ResolvedConcurrency | null {
  if (value === undefined) return null;
  if (typeof value === 'number') {
    return { limit: limitOf(job, 'concurrency', value), keyed: false, whenBusy: 'wait' };
  }
  if (typeof value !== 'object' || value === null) {
    throw new JobDeclarationInvalidError(
      job,
      'concurrency',
      'must be a number or { key, limit, whenBusy }',
    );
  }
  const c = value as { key?: unknown; limit?: unknown; whenBusy?: unknown };
  if (typeof c.key !== 'function') {
    throw new JobDeclarationInvalidError(job, 'concurrency.key', 'must be a function of the input');
  }
  const whenBusy = c.whenBusy ?? 'wait';
  if (whenBusy !== 'wait' && whenBusy !== 'fail') {
    throw new JobDeclarationInvalidError(job, 'concurrency.whenBusy', "must be 'wait' or 'fail'");
  }
  return { limit: limitOf(job, 'concurrency.limit', c.limit), keyed: true, whenBusy };
}

/**
 * Checks a key a keyed cap answered at enqueue: a non-empty string of at most 200 characters, with no NUL and no lone
 * surrogate (the value contract's identifier rule: two keys differing only there would share one slot).
 */
export function assertConcurrencyKey(job: string, key: unknown): string {
  if (typeof key !== 'string' || key.length === 0) {
    throw new JobDeclarationInvalidError(
      job,
      'concurrency.key(input)',
      `must answer a non-empty string (got ${typeof key === 'string' ? "''" : typeof key})`,
    );
  }
  const problem = identifierProblem(key, MAX_CONCURRENCY_KEY_LENGTH);
  if (problem !== undefined) {
    throw new JobDeclarationInvalidError(
      job,
      'concurrency.key(input)',
      `answered a key that ${problem}`,
    );
  }
  return key;
}

/** The lease key of a job's plain cap. */
export function jobCapLeaseKey(name: string): string {
  return `job:${name}`;
}

/** The lease key of one concurrency key of a job: apart from `job:<name>` so no name collides with another's key. */
export function jobLeaseKey(name: string, key: string): string {
  return `job-key:${encodeURIComponent(name)}:${key}`;
}
