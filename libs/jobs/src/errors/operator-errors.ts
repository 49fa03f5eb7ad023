import { JobDuplicateError } from './declaration-errors';
import { JobsError } from './jobs-error';

/**
 * For code that treats a refused cancel as an error: `JobIntrospection.cancel` itself answers `undefined` for a job
 * that is not live or an id no queue holds, and throws nothing.
 */
export class JobNotCancellableError extends JobsError {
  constructor(id: string, state?: string) {
    super(
      'X_JOB_NOT_CANCELLABLE',
      `Job ${id} cannot be cancelled${state ? ` (it is ${state})` : ''}.`,
      {
        fix: 'Only a live job (ready, delayed, running, suspended) is cancelled; find them with x jobs list --state running --json. A finished job is re-run with x jobs retry <id>.',
        meta: { id, state },
      },
    );
  }
}

/** `remove`, `requeue` or `promote` named an id no queue holds. */
export class JobNotFoundError extends JobsError {
  constructor(id: string) {
    super('X_JOB_NOT_FOUND', `No job with id ${id}.`, {
      fix: 'Find the id with x jobs list --json (a copied prefix: --id-prefix <prefix>).',
      meta: { id },
    });
  }
}

/**
 * An operator named a task nothing knows: neither the app's declarations (where they were given) nor the backend (a
 * recorded fire or pause). Refused rather than done, since a mistyped name would otherwise be paused while the task
 * meant goes on firing.
 */
export class TaskNotFoundError extends JobsError {
  constructor(
    task: string,
    fix = 'List the task names with x tasks list --app <module> (or --manifest x.manifest.json): a task that has neither fired nor been paused is known only from its app.',
  ) {
    super('X_TASK_NOT_FOUND', `No task named "${task}" is declared or remembered by the backend.`, {
      fix,
      meta: { task },
    });
  }
}

/**
 * An operator named a queue nothing knows: no row holds it, it is not paused, and no job of the app's declarations
 * (where they were given) is enqueued on it. Refused rather than done, since a mistyped name would otherwise be paused
 * while the queue meant goes on being claimed.
 */
export class QueueNotFoundError extends JobsError {
  constructor(queue: string) {
    super(
      'X_QUEUE_NOT_FOUND',
      `No queue named "${queue}" holds a row, is paused, or is declared by a job.`,
      {
        fix: 'Check the name with x queues list (x manifest --app <module> lists the declared jobs and their queues); pass --app so the declared queues are known, or --force to pause a queue no row names yet.',
        meta: { queue },
      },
    );
  }
}

/** `requeue` reached a live job; only finished jobs can be requeued. */
export class JobNotRequeueableError extends JobsError {
  constructor(id: string, state: string) {
    super('X_JOB_NOT_REQUEUEABLE', `Job ${id} is ${state}; only a finished job can be requeued.`, {
      fix: 'Let it finish, or stop it first with x jobs cancel <id> --json, then retry it.',
      meta: { id, state },
    });
  }
}

/**
 * `requeue` met a live job holding the finished job's idempotency key (`X_JOB_DUPLICATE`, meta `{ id, holder }`):
 * requeued, the job would be a second live run under one key. `holder` is that live job, or undefined when it took the
 * key while the requeue was under way (a driver that learns of it only from its unique index). Every driver answers
 * this one error, so an operator tool reads the same message and meta whatever the backend.
 */
export function requeueHeldError(
  id: string,
  holder?: { readonly id: string; readonly state: string },
): JobDuplicateError {
  const why =
    holder === undefined
      ? 'another job took its idempotency key live while it was being requeued'
      : `live job ${holder.id} (${holder.state}) holds its idempotency key`;
  return new JobDuplicateError(
    `Job ${id} cannot be requeued: ${why}.`,
    'Wait for the live job to finish (or cancel it), then requeue.',
    holder === undefined ? { id } : { id, holder: holder.id },
  );
}

/** `remove` reached a running job. */
export class JobNotRemovableError extends JobsError {
  constructor(id: string) {
    super('X_JOB_NOT_REMOVABLE', `Job ${id} is running and cannot be removed.`, {
      fix: 'Cancel it first: x jobs cancel <id> --json.',
      meta: { id },
    });
  }
}

/** `promote` reached a job that is not waiting on its run time. */
export class JobNotPromotableError extends JobsError {
  constructor(id: string) {
    super('X_JOB_NOT_PROMOTABLE', `Job ${id} is not waiting on its run time.`, {
      fix: 'Only a delayed job, or one backing off before a retry, can be promoted: x jobs show <id> --json shows its state and run time.',
      meta: { id },
    });
  }
}

/** `requeueMany` was asked for a live state: only finished rows (done, failed, dead, cancelled) can be requeued. */
export class BulkNotRequeueableError extends JobsError {
  constructor(state: string) {
    super(
      'X_JOB_NOT_REQUEUEABLE',
      `requeueMany cannot requeue ${state} rows; only finished rows can be requeued.`,
      {
        fix: "Pass state 'dead', 'failed', 'done' or 'cancelled'.",
        meta: { state },
      },
    );
  }
}

/** `removeMany` was asked for running rows: a running job is cancelled first, never deleted under its worker. */
export class BulkNotRemovableError extends JobsError {
  constructor(state: string) {
    super('X_JOB_NOT_REMOVABLE', `removeMany cannot remove ${state} rows.`, {
      fix: 'Cancel the running jobs first, then remove them as cancelled.',
      meta: { state },
    });
  }
}

/** `promoteMany` was asked for a state no row waits on its run time in (only delayed and ready rows do). */
export class BulkNotPromotableError extends JobsError {
  constructor(state: string) {
    super(
      'X_JOB_NOT_PROMOTABLE',
      `promoteMany cannot promote ${state} rows; only delayed or ready rows wait on their run time.`,
      {
        fix: "Pass state 'delayed' or 'ready'.",
        meta: { state },
      },
    );
  }
}

/** `list()` was asked for more than the page maximum, or handed a cursor no page produced. */
export class JobPageInvalidError extends JobsError {
  /** `cursor` names which cursor was refused (`after` or `before`), when a cursor was. */
  constructor(reason: string, cursor?: 'after' | 'before') {
    super('X_JOB_PAGE_INVALID', `Invalid job page request: ${reason}.`, {
      meta: cursor === undefined ? {} : { cursor },
      fix: 'Ask for at most 200 rows (x jobs list --limit 200 --json) and pass cursors from jobCursor(row).',
    });
  }
}

/** A declared onSettled threw on every try; logged and reported, never thrown into the worker. */
export class JobOnSettledFailedError extends JobsError {
  constructor(job: string, tries: number, cause: unknown) {
    super('X_JOB_ON_SETTLED_FAILED', `onSettled of job "${job}" threw on all ${tries} tries.`, {
      cause,
    });
  }
}

/** A registered job declares concurrency and the driver has no lease store. */
export class ConcurrencyUnenforceableError extends JobsError {
  constructor(jobs: readonly string[]) {
    super(
      'X_JOB_CONCURRENCY_UNENFORCEABLE',
      `Jobs ${jobs.join(', ')} declare concurrency, and this driver has no lease store to enforce it.`,
      { fix: 'Use the postgres or memory driver, or remove the concurrency declaration.' },
    );
  }
}

/** A run was claimed under `whenBusy: 'fail'` while its key already held its limit. */
export class JobKeyBusyError extends JobsError {
  constructor(job: string, key: string) {
    super('X_JOB_KEY_BUSY', `Job "${job}" key "${key}" is busy; the run was refused.`, {
      fix: 'Requeue it once the key is free, or declare whenBusy: "wait".',
      meta: { job, key },
    });
  }
}
