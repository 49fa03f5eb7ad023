import { JobDeclarationInvalidError } from '../errors/declaration-errors';
import { parseDuration, type Duration } from '../util/duration';
import { DEFAULT_RETRY, type ResolvedRetryPolicy, type RetryPolicy } from './retry-policy';

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
  if (ms === undefined || ms <= 0) {
    throw new JobDeclarationInvalidError(
      job,
      field,
      `must be a positive duration such as 30_000 or '30s' (got ${String(value)})`,
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
      : finiteNumber(job, 'retry.delay', retry.delay, 0);
  const maxDelay =
    retry.maxDelay === undefined
      ? Math.max(DEFAULT_RETRY.maxDelay, delay)
      : finiteNumber(job, 'retry.maxDelay', retry.maxDelay, 1);
  if (maxDelay < delay) {
    throw new JobDeclarationInvalidError(
      job,
      'retry.maxDelay',
      `is below retry.delay (${maxDelay} < ${delay})`,
    );
  }
  return {
    attempts:
      retry.attempts === undefined
        ? DEFAULT_RETRY.attempts
        : wholeNumber(job, 'retry.attempts', retry.attempts, 1),
    backoff,
    delay,
    maxDelay,
    jitter: retry.jitter ?? DEFAULT_RETRY.jitter,
    deadLetter: retry.deadLetter ?? DEFAULT_RETRY.deadLetter,
  };
}
