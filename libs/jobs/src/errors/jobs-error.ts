/** Every stable error code this package raises. Match on the code, never on the message. */
export type JobsErrorCode =
  | 'X_IDEMPOTENCY_REQUIRED'
  | 'X_JOB_TENANT_REQUIRED'
  | 'X_JOB_TENANT_MISMATCH'
  | 'X_JOB_DECLARATION_INVALID'
  | 'X_JOB_DUPLICATE'
  | 'X_JOB_INPUT_INVALID'
  | 'X_JOB_OPTIONS_INVALID'
  | 'X_ERROR_RETRY_INVALID'
  | 'X_PEER_MISSING'
  | 'X_JOB_UNBOUND'
  | 'X_JOB_UNKNOWN'
  | 'X_DRIVER_UNAVAILABLE'
  | 'X_REDIS_EVICTION_POLICY'
  | 'X_STEP_DUPLICATE'
  | 'X_STEP_OUTPUT_INVALID'
  | 'X_STEP_DURATION_INVALID'
  | 'X_JOB_TIMEOUT'
  | 'X_JOB_MAX_ATTEMPTS'
  | 'X_ABORTED'
  | 'X_DRAINING'
  | 'X_JOB_LEASE_LOST'
  | 'X_JOB_SLOT_LOST'
  | 'X_JOB_NOT_CANCELLABLE'
  | 'X_JOB_NOT_FOUND'
  | 'X_TASK_NOT_FOUND'
  | 'X_QUEUE_NOT_FOUND'
  | 'X_JOB_NOT_REQUEUEABLE'
  | 'X_JOB_NOT_REMOVABLE'
  | 'X_JOB_NOT_PROMOTABLE'
  | 'X_JOB_PAGE_INVALID'
  | 'X_JOB_CLAIM_QUEUES_EMPTY'
  | 'X_JOB_CONCURRENCY_UNENFORCEABLE'
  | 'X_JOB_KEY_BUSY'
  | 'X_JOB_ON_SETTLED_FAILED'
  | 'X_JOB_PAYLOAD_TOO_LARGE'
  | 'X_NOT_IMPLEMENTED'
  | 'X_OUTBOX_NO_TX'
  | 'X_OUTBOX_QUARANTINED'
  | 'X_OUTBOX_HELD_BEHIND'
  | 'X_VALUE_INVALID'
  | 'X_BACKFILL_DECLARATION_INVALID'
  | 'X_BACKFILL_APPLIED'
  | 'X_BACKFILL_ENVIRONMENT'
  | 'X_BACKFILL_MIGRATION_PENDING'
  | 'X_BACKFILL_PENDING'
  | 'X_BACKFILL_RUNNING'
  | 'X_BACKFILL_STALLED'
  | 'X_BACKFILL_UNKNOWN'
  | 'X_WEBHOOK_DELIVERY_FAILED'
  | 'X_WEBHOOK_DELIVERY_REJECTED'
  | 'X_WEBHOOK_DELIVERY_THROTTLED'
  | 'X_WEBHOOK_ENDPOINT_DISABLED'
  | 'X_WEBHOOK_ENDPOINT_INVALID'
  | 'X_WEBHOOK_ENDPOINT_UNKNOWN'
  | 'X_WEBHOOK_EVENT_INVALID'
  | 'X_WEBHOOK_EVENT_UNKNOWN'
  | 'X_EXPORT_PART_TOO_LARGE'
  | 'X_EXPORT_ROW_INVALID'
  | 'X_ADMIN_GUARD_REQUIRED'
  | 'X_ADMIN_WRITE_REFUSED'
  | 'X_INVARIANT';

/** Options every {@link JobsError} accepts beside its message. */
export interface JobsErrorOptions {
  /** What to do about it, in one sentence. */
  readonly fix?: string;
  /** The error this one wraps. */
  readonly cause?: unknown;
  /** Structured facts for logs and retry classification (for example `retryAfterSeconds`). */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/**
 * The base of every error this package throws: a stable `code`, a message saying what happened, and a `fix` hint.
 * Across a process or job boundary the class is gone and the code is what survives.
 */
export class JobsError extends Error {
  /** The stable code (`X_…`). */
  readonly code: JobsErrorCode;
  /** What to do about it. */
  readonly fix: string | undefined;
  /** Structured facts (for example `retryAfterSeconds`). */
  readonly meta: Readonly<Record<string, unknown>>;

  constructor(code: JobsErrorCode, message: string, options: JobsErrorOptions = {}) {
    super(options.fix ? `${message} Fix: ${options.fix}` : message, { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.fix = options.fix;
    this.meta = options.meta ?? {};
  }
}

/**
 * The code of any thrown value, if it carries one (a {@link JobsError} or any error with a string `code`). Never
 * throws: a `code` getter that throws, or a revoked Proxy, answers `undefined` (the failure path reads it on values
 * nobody vetted).
 */
export function errorCodeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  try {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}
