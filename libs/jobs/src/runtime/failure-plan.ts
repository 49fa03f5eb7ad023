import { isFinalAttempt, type ResolvedRetryPolicy } from '../declare/retry-policy';
import type { ClaimedJob } from '../driver/job-row';
import { errorCodeOf } from '../errors/jobs-error';
import { errorRetryOf, retryAfterSecondsOf } from './error-retry';
import type { StopReason } from './outcome';
import { ERROR_TEXT_MAX_LENGTH, renderFailure } from './render-error';
import { retryDelay, statedDelay } from './retry-schedule';

/** Whether the claimed attempt is the job's last: its retry policy's, else the row's `maxAttempts`. */
export function isFinal(claimed: ClaimedJob, retry: ResolvedRetryPolicy | undefined): boolean {
  return retry === undefined
    ? claimed.attempt >= claimed.maxAttempts
    : isFinalAttempt(retry, claimed.attempt);
}

/** A failed attempt that stops for good: dead-lettered, or dropped when the policy keeps no dead letters. */
export interface StopPlan {
  readonly kind: 'stop';
  readonly stop: StopReason;
  readonly deadLetter: boolean;
  readonly code: string | undefined;
  /** The stored `lastError`: the rendered error, with the terminal suffix kept whole within the bound. */
  readonly text: string;
}

/** A failed attempt retried after `delayMs`. */
export interface RetryPlan {
  readonly kind: 'retry';
  readonly delayMs: number;
}

/**
 * What a failed attempt comes to, decided before anything is written: a terminal code or the final attempt stops the
 * job; anything else retries after the delay the error states (`retry-after`) or the policy's back-off. A row whose job
 * this process does not know (no policy) backs off exponentially from 1 s, up to its `maxAttempts`.
 */
export function planFailure(
  error: unknown,
  claimed: ClaimedJob,
  retry: ResolvedRetryPolicy | undefined,
  final: boolean,
  random: (() => number) | undefined,
): StopPlan | RetryPlan {
  const cls = errorRetryOf(error);
  if (cls === 'terminal' || final) {
    const stop: StopReason = cls === 'terminal' ? 'terminal' : 'attempts-exhausted';
    const code = errorCodeOf(error);
    const suffix =
      stop === 'terminal'
        ? ` [terminal: ${code ?? 'unclassified'}; attempt ${claimed.attempt} of ${claimed.maxAttempts}]`
        : '';
    // the suffix is kept whole on the first line: the error is cut to leave it room within the bound, frames follow
    const text = renderFailure(error, suffix, ERROR_TEXT_MAX_LENGTH);
    return { kind: 'stop', stop, deadLetter: retry?.deadLetter ?? true, code, text };
  }
  const stated = cls === 'retry-after' ? retryAfterSecondsOf(error) : undefined;
  const policy = retry ?? {
    attempts: claimed.maxAttempts,
    backoff: 'exponential' as const,
    delay: 1_000,
    maxDelay: 3_600_000,
    jitter: true,
    deadLetter: true,
  };
  const delayMs =
    stated !== undefined
      ? statedDelay(policy, stated * 1_000, random)
      : retryDelay(policy, claimed.attempt, random);
  // whole milliseconds, as every time is: a fraction (`delay: 1.5`, a `Retry-After` of 1.2345 s, no jitter) armed the
  // worker's wake at a fractional instant, and a frozen clock moved there stamped the next step write with it
  return { kind: 'retry', delayMs: Math.round(delayMs) };
}
