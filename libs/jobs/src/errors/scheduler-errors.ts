import { JobsError } from './jobs-error';

/**
 * A `task()` field is missing, out of range or of the wrong shape (a cron that cannot fire, a zone the runtime does not
 * know); refused where the task is declared. Same code as a bad `job()` field: `X_JOB_DECLARATION_INVALID`.
 */
export class TaskDeclarationInvalidError extends JobsError {
  constructor(task: string, field: string, reason: string, fix?: string) {
    super('X_JOB_DECLARATION_INVALID', `Task "${task}": ${field} ${reason}.`, {
      fix: fix ?? `Correct ${field} in the task() declaration.`,
      meta: { task, field },
    });
  }
}
