import { ErrorRetryInvalidError } from '../errors/declaration-errors';
import { errorCodeOf } from '../errors/jobs-error';
import { registeredErrorRetry, setErrorRetry } from '../declare/ambient';

/** How a thrown code is retried: stop now, wait the named time, or follow the backoff. */
export type ErrorRetryClass = 'terminal' | 'retry-after' | 'retryable';

const CLASSES: ReadonlySet<string> = new Set<ErrorRetryClass>([
  'terminal',
  'retry-after',
  'retryable',
]);

/**
 * Codes this package classifies itself — part of what it guarantees, so an app cannot register them again (made
 * retryable, a tenant the run may not act under would be tried again; made terminal, a run that met a service in its
 * deploy's drain, answering `X_DRAINING`, would dead-letter where it should be tried again).
 */
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
  // An export's page maps and encodes the same on every attempt: a retry would only rewrite the parts before it.
  X_EXPORT_PART_TOO_LARGE: 'terminal',
  X_EXPORT_ROW_INVALID: 'terminal',
  // A throttled webhook delivery waits what the receiver named; a row that is wrong, gone or disabled is refused the
  // same on every attempt; an unanswered or refused POST follows the backoff (and counts toward disableAfter).
  X_WEBHOOK_DELIVERY_THROTTLED: 'retry-after',
  X_WEBHOOK_DELIVERY_FAILED: 'retryable',
  X_WEBHOOK_DELIVERY_REJECTED: 'retryable',
  X_WEBHOOK_ENDPOINT_DISABLED: 'terminal',
  X_WEBHOOK_ENDPOINT_INVALID: 'terminal',
  X_WEBHOOK_ENDPOINT_UNKNOWN: 'terminal',
  X_WEBHOOK_EVENT_INVALID: 'terminal',
  X_WEBHOOK_EVENT_UNKNOWN: 'terminal',
};

/** Why `registerErrorRetry` refuses `code` as `cls`, or `undefined` when it may be registered. */
function refusal(code: string, cls: unknown): string | undefined {
  if (code === '') return 'is no code';
  if (typeof cls !== 'string' || !CLASSES.has(cls)) {
    return `is classified ${JSON.stringify(cls) ?? String(cls)}, which is not 'terminal', 'retry-after' or 'retryable'`;
  }
  if (Object.hasOwn(BUILT_IN, code))
    return `is classified by the package itself (${BUILT_IN[code]})`;
  const registered = registeredErrorRetry(code);
  if (registered !== undefined && registered !== cls)
    return `is already registered as '${registered}'`;
  return undefined;
}

/**
 * Classifies app error codes for the queue: `terminal` codes dead-letter on the attempt they happen, `retry-after`
 * codes wait the time the error names (`meta.retryAfterSeconds`), `retryable` ones follow the backoff. Call it beside
 * the module that declares the codes: that import is the registration. A code is registered once (the same class
 * again is a no-op); a class that is none of the three, a code the package classifies itself (`X_JOB_TIMEOUT`,
 * `X_DRAINING`, `X_JOB_TENANT_MISMATCH`, …) or a code registered under another class is `X_ERROR_RETRY_INVALID`,
 * and then nothing of `table` is registered.
 */
export function registerErrorRetry(table: Readonly<Record<string, ErrorRetryClass>>): void {
  const entries = Object.entries(table);
  for (const [code, cls] of entries) {
    const reason = refusal(code, cls);
    if (reason !== undefined) throw new ErrorRetryInvalidError(code, reason);
  }
  for (const [code, cls] of entries) setErrorRetry(code, cls);
}

/** The classification of a thrown value: its code's registered class, or `undefined` (unclassified → backoff). */
export function errorRetryOf(error: unknown): ErrorRetryClass | undefined {
  const code = errorCodeOf(error);
  if (code === undefined) return undefined;
  // An own key only: a code spelled like an Object.prototype member (`constructor`) is an app code like any other.
  if (Object.hasOwn(BUILT_IN, code)) return BUILT_IN[code];
  return registeredErrorRetry(code) as ErrorRetryClass | undefined;
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
