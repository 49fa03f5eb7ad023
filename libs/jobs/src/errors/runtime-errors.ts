import { JobsError } from './jobs-error';

/**
 * An enqueue found nowhere to go: no facade is installed (before the module bootstrapped, after it closed, or none at
 * all), or the database is out of reach. The row certainly was not written; never a silently dropped job. An event
 * published through a facade that has no event bus is refused the same way.
 */
export class DriverUnavailableError extends JobsError {
  constructor(
    detail = 'No jobs facade is installed',
    fix = 'Import JobsModule.forRoot({ driver }) in the app and enqueue once it bootstrapped; a script without Nest installs one with setJobsFacade(directJobsFacade({ driver })).',
    options: {
      readonly cause?: unknown;
      readonly meta?: Readonly<Record<string, unknown>>;
      /** What certainly did not happen (default: the job was not queued). */
      readonly notDone?: string;
    } = {},
  ) {
    const { notDone = 'the job was not queued', ...rest } = options;
    super('X_DRIVER_UNAVAILABLE', `${detail}; ${notDone}.`, { fix, ...rest });
  }
}

/** A declaration with no inline `run` was served by a worker that has no `@Job` handler bound to it. */
export class JobUnboundError extends JobsError {
  constructor(job: string) {
    super('X_JOB_UNBOUND', `Job "${job}" has no run() and no @Job(handle) method is bound to it.`, {
      fix: 'Add run to the job() declaration, or decorate exactly one provider method with @Job(handle).',
      meta: { job },
    });
  }
}

/** A job name reached the worker or the registry that no registered declaration carries. */
export class JobUnknownError extends JobsError {
  constructor(job: string) {
    super('X_JOB_UNKNOWN', `No job named "${job}" is registered in this process.`, {
      fix: 'Register the declaration with JobsModule.forFeature({ jobs: [...] }) in the worker too.',
      meta: { job },
    });
  }
}

/** Two steps share a name inside one run. Step names are the replay key. */
export class StepDuplicateError extends JobsError {
  constructor(step: string) {
    super('X_STEP_DUPLICATE', `Step "${step}" ran twice in one run.`, {
      fix: 'Give every step in a run a unique, deterministic name (for example `enqueue:${row.id}`).',
      meta: { step },
    });
  }
}

/** A step returned a value that cannot be stored as JSON. */
export class StepOutputInvalidError extends JobsError {
  constructor(step: string, reason: string) {
    super('X_STEP_OUTPUT_INVALID', `Step "${step}" returned a value that is not JSON: ${reason}.`, {
      fix: 'Return plain JSON from a step (convert Dates to ISO strings, Maps to objects, BigInts to strings).',
      meta: { step },
    });
  }
}

/**
 * A step was handed a duration that does not parse (`step.sleep('2 days')`, a waitForEvent `timeout: '1 hour'`).
 * Refused at the call, before anything is written; terminal, since the body passes the same value on every attempt.
 */
export class StepDurationInvalidError extends JobsError {
  constructor(step: string, field: string, value: string, forms: string) {
    super('X_STEP_DURATION_INVALID', `Step "${step}": ${field} ${value} is not a duration.`, {
      fix: `Pass ${forms}.`,
      meta: { step, field },
    });
  }
}

/** The attempt (or a required waitForEvent) ran past its declared timeout. */
export class JobTimeoutError extends JobsError {
  constructor(what: string, ms: number) {
    super('X_JOB_TIMEOUT', `${what} exceeded its timeout of ${ms} ms.`, {
      meta: { timeoutMs: ms },
    });
  }
}

/**
 * For code that reports a job out of attempts: the runtime itself buries such a row (`dead`, or `failed` under
 * `retry.deadLetter: false`) with the last attempt's error, and throws nothing.
 */
export class JobMaxAttemptsError extends JobsError {
  constructor(job: string, attempts: number) {
    super('X_JOB_MAX_ATTEMPTS', `Job "${job}" failed ${attempts} attempts and was dead-lettered.`, {
      fix: 'Inspect the last error, fix the cause, then requeue the job.',
    });
  }
}

/** A cancelled attempt tried to write durable state. */
export class JobAbortedError extends JobsError {
  constructor(detail: string) {
    super('X_ABORTED', `The attempt was cancelled: ${detail}.`);
  }
}

/** The worker is draining: the held run's signal was aborted so it can unwind and be handed back uncounted. */
export class JobDrainedError extends JobsError {
  constructor(workerId: string, signal: string) {
    super(
      'X_DRAINING',
      `Worker ${workerId} is draining (${signal}); the run is handed back uncounted.`,
      {
        meta: { workerId, signal },
      },
    );
  }
}

/** The job was cancelled, or its lease lapsed and it was re-delivered, while this worker still ran it. */
export class LeaseLostError extends JobsError {
  constructor(jobId: string) {
    super('X_JOB_LEASE_LOST', `The lease on job ${jobId} was lost while it was running.`, {
      fix: 'Raise visibilityTimeoutMs, or keep the event loop free so the heartbeat can run.',
      meta: { jobId },
    });
  }
}

/** A fleet concurrency slot this run held was taken by another worker. */
export class JobSlotLostError extends JobsError {
  constructor(jobId: string, key: string) {
    super(
      'X_JOB_SLOT_LOST',
      `The concurrency slot ${key} held by job ${jobId} was taken by another worker.`,
      {
        meta: { jobId, key },
      },
    );
  }
}

/** `claim()` was asked to claim from no queue. */
export class ClaimQueuesEmptyError extends JobsError {
  constructor() {
    super('X_JOB_CLAIM_QUEUES_EMPTY', 'claim() was called with no queue to claim from.', {
      fix: 'Pass at least one { queue, limit } slot.',
    });
  }
}

/** An internal rule was broken: a bug of ours, or a value from outside that no path accepts. */
export class InvariantError extends JobsError {
  constructor(message: string, fix?: string) {
    super('X_INVARIANT', message, fix === undefined ? {} : { fix });
  }
}

/** An operation this driver does not implement; the memory and PostgreSQL drivers implement every one. */
export class NotImplementedError extends JobsError {
  constructor(what: string) {
    super('X_NOT_IMPLEMENTED', `${what} is not implemented by this driver.`, {
      fix: 'Use a driver that implements it (postgres or memory).',
    });
  }
}
