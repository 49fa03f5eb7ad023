import type { ResolvedRetryPolicy, RetryPolicy } from '../declare/retry-policy';
import { resolveRetry } from '../declare/validate';

/**
 * The base delay before each retry, without jitter: one entry per retry, so `attempts - 1` entries.
 * `retrySchedule({ attempts: 5, backoff: 'exponential', delay: 1000 })` is `[1000, 2000, 4000, 8000]`.
 */
export function retrySchedule(policy: RetryPolicy): number[] {
  const resolved = resolveRetry('retrySchedule', policy);
  return Array.from({ length: resolved.attempts - 1 }, (_, i) => baseDelay(resolved, i + 1));
}

/** The base delay after failed attempt `attempt` (1-based), clamped by `maxDelay`. */
export function baseDelay(policy: ResolvedRetryPolicy, attempt: number): number {
  const n = Math.max(1, attempt);
  // the exponent stops at 1023: 2 ** 1024 is Infinity, and a delay of 0 times it NaN, a retry the driver refuses to
  // schedule (the row sat running until its lease lapsed); 2 ** 1023 ms is already past the longest maxDelay
  const raw =
    policy.backoff === 'exponential'
      ? policy.delay * 2 ** Math.min(n - 1, 1023)
      : policy.backoff === 'linear'
        ? policy.delay * n
        : policy.delay;
  return Math.min(raw, policy.maxDelay);
}

/**
 * Equal jitter: half the delay fixed, half random, so a burst of failures does not retry in lockstep while no retry
 * comes sooner than half its delay.
 */
export function equalJitter(delayMs: number, random: () => number = Math.random): number {
  const half = delayMs / 2;
  return Math.round(half + random() * half);
}

/**
 * A delay the responder named (retry-after), clamped by `maxDelay` and spread upward by up to 10 % (at most 1 s) so
 * deliveries handed one instant do not wake together.
 */
export function statedDelay(
  policy: ResolvedRetryPolicy,
  statedMs: number,
  random: () => number = Math.random,
): number {
  const clamped = Math.min(Math.max(0, statedMs), policy.maxDelay);
  if (!policy.jitter) return clamped;
  return Math.min(policy.maxDelay, Math.round(clamped + random() * Math.min(clamped * 0.1, 1_000)));
}

/** The delay before the retry after failed attempt `attempt`, jittered when the policy says so. */
export function retryDelay(
  policy: ResolvedRetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const base = baseDelay(policy, attempt);
  return policy.jitter ? equalJitter(base, random) : base;
}
