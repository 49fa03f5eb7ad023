/** How a failed attempt is retried. */
export interface RetryPolicy {
  /** Total attempts, the first included (default 3). */
  readonly attempts?: number;
  /** How the delay grows (default `'exponential'`). */
  readonly backoff?: 'exponential' | 'linear' | 'fixed';
  /** The first retry's delay in ms (default 1000). */
  readonly delay?: number;
  /** The ceiling of any one delay in ms (default one hour). */
  readonly maxDelay?: number;
  /** Equal jitter: half the delay fixed, half random (default true). */
  readonly jitter?: boolean;
  /** Exhausted jobs go to the dead-letter queue (`dead`); `false` settles them `failed` (default true). */
  readonly deadLetter?: boolean;
}

/** A retry policy with every default filled in. */
export interface ResolvedRetryPolicy {
  /** Total attempts, the first included. */
  readonly attempts: number;
  /** How the delay grows between retries. */
  readonly backoff: 'exponential' | 'linear' | 'fixed';
  /** The first retry's delay in ms. */
  readonly delay: number;
  /** The ceiling of any one delay in ms. */
  readonly maxDelay: number;
  /** Whether equal jitter applies (half the delay fixed, half random). */
  readonly jitter: boolean;
  /** Whether exhausted jobs go `dead` (true) or settle `failed` (false). */
  readonly deadLetter: boolean;
}

/** The defaults of {@link RetryPolicy}. */
export const DEFAULT_RETRY: ResolvedRetryPolicy = {
  attempts: 3,
  backoff: 'exponential',
  delay: 1_000,
  maxDelay: 3_600_000,
  jitter: true,
  deadLetter: true,
};

/** Whether a failure of `attempt` (1-based) is not retried for want of attempts. */
export function isFinalAttempt(
  retry: Pick<ResolvedRetryPolicy, 'attempts'>,
  attempt: number,
): boolean {
  return attempt >= retry.attempts;
}
