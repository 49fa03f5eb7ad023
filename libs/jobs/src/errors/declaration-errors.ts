import { JobsError } from './jobs-error';

/** `job()` was declared without an `idempotencyKey` (a JS caller; TypeScript refuses it at compile time). */
export class IdempotencyRequiredError extends JobsError {
  constructor(job: string) {
    super('X_IDEMPOTENCY_REQUIRED', `Job "${job}" declares no idempotencyKey.`, {
      fix: 'Add idempotencyKey: (input) => string — queues deliver at least once, so every job must say how to dedupe.',
    });
  }
}

/** `job()` was declared without a `tenant` (a JS caller; TypeScript refuses it at compile time). */
export class JobTenantRequiredError extends JobsError {
  constructor(job: string, detail = 'declares no tenant') {
    super('X_JOB_TENANT_REQUIRED', `Job "${job}" ${detail}.`, {
      fix: "Add tenant: (input) => input.orgId, or tenant: 'none' for a job that belongs to no tenant.",
    });
  }
}

/** A declaration field is out of range or of the wrong shape; refused where the job is declared. */
export class JobDeclarationInvalidError extends JobsError {
  constructor(job: string, field: string, reason: string) {
    super('X_JOB_DECLARATION_INVALID', `Job "${job}": ${field} ${reason}.`, {
      fix: `Correct ${field} in the job() declaration.`,
      meta: { job, field },
    });
  }
}

/** Two different declarations claim one durable name, or an enqueue met a live key under `onConflict: 'error'`. */
export class JobDuplicateError extends JobsError {
  constructor(message: string, fix: string, meta: Readonly<Record<string, unknown>> = {}) {
    super('X_JOB_DUPLICATE', message, { fix, meta });
  }
}

/** One problem with an input: where it is, why, and (in a batch) which item. */
export interface JobInputIssue {
  /** The item of an `enqueueMany` batch the problem is in (0-based); absent for a single enqueue. */
  readonly index?: number;
  /** Where in the input (`address.city`, `items[2].id`); `''` for the input itself. */
  readonly path: string;
  /** What is wrong there, as the validator put it (`required`, `expected a UUID, got 'x'`). */
  readonly message: string;
}

/** An enqueue's input (or, for `enqueueMany`, one or more items) failed the job's schema; nothing was queued. */
export class JobInputInvalidError extends JobsError {
  /** Each problem, with the path it was found at (and, in a batch, the item's index). */
  readonly issues: readonly JobInputIssue[];

  constructor(job: string, issues: readonly JobInputIssue[]) {
    const where = (i: JobInputIssue): string =>
      `${i.index === undefined ? '' : `[${i.index}] `}${i.path || '(root)'}`;
    const list = issues.map((i) => `${where(i)}: ${i.message}`).join('; ');
    super(
      'X_JOB_INPUT_INVALID',
      `Input for job "${job}" is invalid — ${list}. Nothing was queued.`,
      {
        fix: 'Pass an input that matches the job’s input schema.',
        meta: { job, issues },
      },
    );
    this.issues = issues;
  }
}

/** The stored payload exceeds the enqueue size limit. */
export class JobPayloadTooLargeError extends JobsError {
  constructor(job: string, bytes: number, limit: number) {
    super(
      'X_JOB_PAYLOAD_TOO_LARGE',
      `Input for job "${job}" is ${bytes} bytes, over the ${limit}-byte limit. Nothing was queued.`,
      {
        fix: 'Store large data elsewhere and pass its id in the input.',
        meta: { job, bytes, limit },
      },
    );
  }
}

/**
 * An enqueue's options are out of range or of the wrong shape — a `runId` that is not a UUID, a `runAt` that is no
 * time, `runAt` and `delay` together; nothing was queued.
 */
export class EnqueueOptionsInvalidError extends JobsError {
  constructor(job: string, field: string, reason: string) {
    super(
      'X_JOB_OPTIONS_INVALID',
      `Enqueue of job "${job}": ${field} ${reason}. Nothing was queued.`,
      {
        fix: `Correct ${field} in the options passed to enqueue().`,
        meta: { job, field },
      },
    );
  }
}

/** A feature needs an optional peer package that could not be loaded (not installed, or failing to load). */
export class OptionalPeerMissingError extends JobsError {
  constructor(feature: string, packages: readonly string[], cause?: unknown) {
    super(
      'X_PEER_MISSING',
      `${feature} needs the optional peer ${packages.join(' and ')}, which could not be loaded.`,
      { fix: `npm install ${packages.join(' ')}`, cause, meta: { feature, packages } },
    );
  }
}

/**
 * `registerErrorRetry` was handed a class that is none of the three, a code this package classifies itself, or a code
 * already registered under another class; nothing of that table was registered.
 */
export class ErrorRetryInvalidError extends JobsError {
  constructor(code: string, reason: string) {
    super('X_ERROR_RETRY_INVALID', `registerErrorRetry: ${JSON.stringify(code)} ${reason}.`, {
      fix: "Register each of your own codes once, as 'terminal', 'retry-after' or 'retryable'.",
      meta: { code },
    });
  }
}
