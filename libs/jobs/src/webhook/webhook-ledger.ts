import { InvariantError } from '../errors/runtime-errors';

/** How one delivery attempt ended, as the ledger records it. */
export type WebhookAttemptOutcome =
  /** The receiver answered 2xx. */
  | 'delivered'
  /** No answer (connection refused, reset), or a 5xx. */
  | 'failed'
  /** A 3xx (never followed) or a 4xx other than 429. */
  | 'rejected'
  /** A 429, or a 503 naming a `Retry-After`. */
  | 'throttled'
  /** The destination address was refused (private, loopback, link-local) before any byte was sent. */
  | 'refused';

/** One delivery attempt: written before the attempt's outcome is thrown or returned. */
export interface WebhookAttempt {
  /** The endpoint the attempt was for. */
  readonly endpointId: string;
  /** The event the attempt carried. */
  readonly eventId: string;
  /** The event's topic. */
  readonly topic: string;
  /** The org the run acted under, or null (`tenant: 'none'`). */
  readonly orgId: string | null;
  /** The id of the job row that made the attempt. */
  readonly jobId: string;
  /** The id of the run within that job. */
  readonly runId: string;
  /** The job's attempt number (1-based). */
  readonly attempt: number;
  /** How the attempt ended. */
  readonly outcome: WebhookAttemptOutcome;
  /** The HTTP status, or null when there was no answer. */
  readonly status: number | null;
  /** The error code thrown for it (`X_WEBHOOK_…`), or null when delivered. */
  readonly code: string | null;
  /** A line saying what went wrong (never a secret or a header value), or null when delivered. */
  readonly error: string | null;
  /** When the request started (epoch ms, the webhook's clock). */
  readonly attemptedAtMs: number;
  /** How long it took until the answer (or the failure), ms. */
  readonly durationMs: number;
}

/** Why and when the ledger disabled an endpoint. */
export interface WebhookDisable {
  /** The consecutive failed attempts that reached `disableAfter`. */
  readonly failures: number;
  /** When it was disabled (epoch ms, the webhook's clock). */
  readonly atMs: number;
  /** The code of the attempt that tipped it. */
  readonly code: string | null;
}

/**
 * Where a webhook records its attempts and its per-endpoint verdict. A seam: how long attempts are kept is the app's
 * (seven years for one business, thirty days for the next). `memoryWebhookLedger()` is for dev and tests;
 * `@ultimat3/jobs-pg` ships `postgresWebhookLedger()`.
 */
export interface WebhookLedger {
  /**
   * Records one attempt and answers the endpoint's consecutive failed attempts after it: a delivered attempt resets
   * the count to 0, any other outcome adds one. Called before the attempt's outcome is thrown, so a failure the ledger
   * cannot see never happens (it would never count toward `disableAfter`).
   */
  record(attempt: WebhookAttempt): Promise<number>;
  /** Whether the endpoint is disabled. Asked before every socket. */
  isDisabled(endpointId: string): Promise<boolean>;
  /** Disables the endpoint (the webhook calls it when the count reaches `disableAfter`). Idempotent. */
  disable(endpointId: string, disable: WebhookDisable): Promise<void>;
  /** Re-enables the endpoint and resets its count. The framework never calls it: re-enabling is the app's. */
  enable(endpointId: string): Promise<void>;
  /**
   * The endpoint's most recent attempts, newest first (at most `limit`: a whole number from 1 to 1,000, default 50;
   * any other limit is refused with `X_INVARIANT`). Each call answers fresh objects.
   */
  attempts(endpointId: string, limit?: number): Promise<readonly WebhookAttempt[]>;
}

/** Most attempts one {@link WebhookLedger.attempts} answers (1,000); the default is 50. */
export const MAX_WEBHOOK_ATTEMPTS_PAGE = 1_000;

/**
 * The `limit` of a {@link WebhookLedger.attempts} call: a whole number in 1..1,000 (default 50), else `X_INVARIANT` —
 * the same answer from every ledger, before anything is read.
 */
export function webhookAttemptsLimit(limit: number = 50): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_WEBHOOK_ATTEMPTS_PAGE) {
    throw new InvariantError(
      `webhook ledger attempts(): limit must be a whole number from 1 to ${MAX_WEBHOOK_ATTEMPTS_PAGE}, not ${String(limit)}.`,
      'Ask for a limit in range.',
    );
  }
  return limit;
}
