import { DEFAULT_RETRY, type ResolvedRetryPolicy } from '../src/declare/retry-policy';
import type { ClaimedJob } from '../src/driver/job-row';

/** A claimed row of job `name` with the fields a failure plan reads; the rest are never touched. */
export function claimedAt(name: string, attempt: number, maxAttempts: number): ClaimedJob {
  return { name, attempt, maxAttempts } as ClaimedJob;
}

/** A policy of four attempts two seconds apart, without jitter: every delay a plan answers is exact. */
export const fixedRetry: ResolvedRetryPolicy = {
  ...DEFAULT_RETRY,
  attempts: 4,
  backoff: 'fixed',
  delay: 2_000,
  jitter: false,
};

/** An `Error` carrying `code` (and any `extra` own fields, such as `meta`). */
export const coded = (code: string, extra: object = {}): Error =>
  Object.assign(new Error(`failed with ${code}`), { code }, extra);
