import { errorCodeOf } from '../errors/jobs-error';
import { registeredErrorRetry, setErrorRetry } from '../declare/ambient';

/** How a thrown code is retried: stop now, wait the named time, or follow the backoff. */
export type ErrorRetryClass = 'terminal' | 'retry-after' | 'retryable';

/** Codes this package classifies itself. */
const BUILT_IN: Readonly<Record<string, ErrorRetryClass>> = {
  X_STEP_DUPLICATE: 'terminal',
  X_STEP_OUTPUT_INVALID: 'terminal',
  X_STEP_DURATION_INVALID: 'terminal',
  // A value that breaks the value contract (a step name with a lone surrogate) is refused the same on every attempt.
  X_VALUE_INVALID: 'terminal',
  // A tenant the run may not act under is refused on every attempt: an authority fault, never transient. (A stored
  // payload the schema refuses is NOT here: a worker of a newer build may accept it, so it takes the retry path.)
  X_JOB_TENANT_MISMATCH: 'terminal',
  X_JOB_TENANT_REQUIRED: 'terminal',
  X_JOB_KEY_BUSY: 'terminal',
  // A backfill's predicates that disagree, or an environment it is not declared for, are the same on every attempt.
  X_BACKFILL_STALLED: 'terminal',
  X_BACKFILL_ENVIRONMENT: 'terminal',
  X_JOB_TIMEOUT: 'retryable',
  X_DRAINING: 'retryable',
};

/**
 * Classifies app error codes for the queue: `terminal` codes dead-letter on the attempt they happen, `retry-after`
 * codes wait the time the error names (`meta.retryAfterSeconds`), `retryable` ones follow the backoff. Call it beside
 * the module that declares the codes: that import is the registration.
 */
export function registerErrorRetry(table: Readonly<Record<string, ErrorRetryClass>>): void {
  for (const [code, cls] of Object.entries(table)) setErrorRetry(code, cls);
}

/** The classification of a thrown value: its code's registered class, or `undefined` (unclassified → backoff). */
export function errorRetryOf(error: unknown): ErrorRetryClass | undefined {
  const code = errorCodeOf(error);
  if (code === undefined) return undefined;
  return (registeredErrorRetry(code) as ErrorRetryClass | undefined) ?? BUILT_IN[code];
}

/** The `retryAfterSeconds` an error carries in its meta (or top level), when a positive finite number. */
export function retryAfterSecondsOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { meta?: { retryAfterSeconds?: unknown }; retryAfterSeconds?: unknown };
  let v: unknown;
  try {
    v = e.meta?.retryAfterSeconds ?? e.retryAfterSeconds;
  } catch {
    return undefined; // a getter that throws (or a revoked Proxy) names no wait
  }
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}
