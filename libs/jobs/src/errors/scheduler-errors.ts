import { JobsError } from './jobs-error';

/**
 * A `task()` field is missing, out of range or of the wrong shape (a cron that cannot fire, a zone the runtime does not
 * know); refused where the task is declared. Same code as a bad `job()` field: `X_JOB_DECLARATION_INVALID`.
 */
export class TaskDeclarationInvalidError extends JobsError {
  constructor(task: string, field: string, reason: string, fix?: string, cause?: unknown) {
    super('X_JOB_DECLARATION_INVALID', `Task "${task}": ${field} ${reason}.`, {
      fix: fix ?? `Correct ${field} in the task() declaration.`,
      meta: { task, field },
      ...(cause === undefined ? {} : { cause }),
    });
  }
}

/** `jobScheduler()` was handed an option no path accepts (a tick of 0 ms, a task that is not a `task()` handle). */
export class SchedulerOptionsInvalidError extends JobsError {
  constructor(option: string, reason: string) {
    super('X_INVARIANT', `jobScheduler(): ${option} ${reason}.`, {
      fix: `Correct ${option} in the jobScheduler() options.`,
      meta: { option },
    });
  }
}
