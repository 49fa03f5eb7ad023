import { JobDeclarationInvalidError } from '../errors/declaration-errors';
import { parseDuration, type Duration } from '../util/duration';
import { MAX_ATTEMPTS, MAX_DURATION_MS, MAX_PRIORITY, MIN_PRIORITY } from '../values/bounds';
import { integerProblem } from '../values/scalars';
import { DEFAULT_RETRY, type ResolvedRetryPolicy, type RetryPolicy } from './retry-policy';

/** A declared priority: a whole number in the column's 32-bit range, or X_JOB_DECLARATION_INVALID. */
export function declaredPriority(job: string, value: unknown): number {
  const problem = integerProblem(value, MIN_PRIORITY, MAX_PRIORITY);
  if (problem !== undefined) throw new JobDeclarationInvalidError(job, 'priority', problem);
  return value as number;
}

/** A delay in ms from 0 to 100 years, or X_JOB_DECLARATION_INVALID naming the field. */
function declaredDelay(job: string, field: string, value: unknown, min: number): number {
  const ms = finiteNumber(job, field, value, min);
  if (ms > MAX_DURATION_MS) {
    throw new JobDeclarationInvalidError(
      job,
      field,
      `is ${ms} ms, over the ${MAX_DURATION_MS} ms (100 years) allowed`,
    );
  }
  return ms;
}

/** A whole number ≥ `min`, or X_JOB_DECLARATION_INVALID naming the field. */
export function wholeNumber(job: string, field: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new JobDeclarationInvalidError(
      job,
      field,
      `must be a whole number of at least ${min} (got ${String(value)})`,
    );
  }
  return value;
}

/** A finite number ≥ `min`. */
export function finiteNumber(job: string, field: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new JobDeclarationInvalidError(
      job,
      field,
      `must be a finite number of at least ${min} (got ${String(value)})`,
    );
  }
  return value;
}

/** A positive duration in ms (zero, negative, NaN, Infinity and unknown units refused), or undefined when absent. */
export function positiveDuration(
  job: string,
  field: string,
  value: Duration | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0 || ms > MAX_DURATION_MS) {
    throw new JobDeclarationInvalidError(
      job,
      field,
      `must be a positive duration of at most 100 years, such as 30_000 or '30s' (got ${String(value)})`,
    );
  }
  return ms;
}

/** Fills and checks a retry policy. */
export function resolveRetry(job: string, retry: RetryPolicy | undefined): ResolvedRetryPolicy {
  if (retry === undefined) return DEFAULT_RETRY;
  if (typeof retry !== 'object' || retry === null) {
    throw new JobDeclarationInvalidError(job, 'retry', 'must be an object');
  }
  const backoff = retry.backoff ?? DEFAULT_RETRY.backoff;
  if (!['exponential', 'linear', 'fixed'].includes(backoff)) {
    throw new JobDeclarationInvalidError(
      job,
      'retry.backoff',
      "must be 'exponential', 'linear' or 'fixed'",
    );
  }
  const delay =
    retry.delay === undefined
      ? DEFAULT_RETRY.delay
      : declaredDelay(job, 'retry.delay', retry.delay, 0);
  const maxDelay =
    retry.maxDelay === undefined
      ? Math.max(DEFAULT_RETRY.maxDelay, delay)
      : declaredDelay(job, 'retry.maxDelay', retry.maxDelay, 1);
  if (maxDelay < delay) {
    throw new JobDeclarationInvalidError(
      job,
      'retry.maxDelay',
      `is below retry.delay (${maxDelay} < ${delay})`,
    );
  }
  return {
    attempts:
      retry.attempts === undefined ? DEFAULT_RETRY.attempts : attemptsOf(job, retry.attempts),
    backoff,
    delay,
    maxDelay,
    jitter: flagOf(job, 'retry.jitter', retry.jitter, DEFAULT_RETRY.jitter),
    deadLetter: flagOf(job, 'retry.deadLetter', retry.deadLetter, DEFAULT_RETRY.deadLetter),
  };
}

/** A declared flag: `true` or `false` (a string `'false'` would read as true), `fallback` when absent. */
function flagOf(job: string, field: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    throw new JobDeclarationInvalidError(
      job,
      field,
      `must be true or false (got ${typeof value === 'string' ? JSON.stringify(value) : String(value)})`,
    );
  }
  return value;
}

/** Declared attempts: a whole number from 1 to {@link MAX_ATTEMPTS} (the column is a 32-bit integer). */
function attemptsOf(job: string, value: unknown): number {
  const problem = integerProblem(value, 1, MAX_ATTEMPTS);
  if (problem !== undefined) throw new JobDeclarationInvalidError(job, 'retry.attempts', problem);
  return value as number;
}
