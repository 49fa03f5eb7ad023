import type { JobsErrorCode } from '../../errors/jobs-error';

/**
 * The HTTP status `JobsErrorFilter` answers for each code. A code not listed is 500: the fault is the server's (a
 * declaration or wiring bug, an invariant), and the caller can do nothing about it.
 *
 * | status | codes | why |
 * |---|---|---|
 * | 400 | `X_JOB_INPUT_INVALID`, `X_JOB_OPTIONS_INVALID`, `X_JOB_PAGE_INVALID`, `X_JOB_TENANT_REQUIRED`, `X_VALUE_INVALID` | what the caller sent is refused; the body lists the issues |
 * | 403 | `X_JOB_TENANT_MISMATCH`, `X_ADMIN_WRITE_REFUSED` | the row names another org than the actor's; the admin API refused a write |
 * | 404 | `X_JOB_NOT_FOUND`, `X_TASK_NOT_FOUND`, `X_QUEUE_NOT_FOUND` | no job under that id; no task or queue of that name |
 * | 409 | `X_JOB_DUPLICATE`, `X_JOB_KEY_BUSY`, `X_JOB_NOT_CANCELLABLE`, `X_JOB_NOT_REQUEUEABLE`, `X_JOB_NOT_REMOVABLE`, `X_JOB_NOT_PROMOTABLE` | the job's current state forbids it |
 * | 413 | `X_JOB_PAYLOAD_TOO_LARGE` | the input is over the size limit: send less |
 * | 501 | `X_NOT_IMPLEMENTED` | the driver has no such operation |
 * | 503 | `X_DRIVER_UNAVAILABLE`, `X_DRAINING` | the queue is unreachable or shutting down: try again |
 */
export const JOBS_ERROR_HTTP_STATUS: Readonly<Partial<Record<JobsErrorCode, number>>> =
  Object.freeze({
    X_JOB_INPUT_INVALID: 400,
    X_JOB_OPTIONS_INVALID: 400,
    X_JOB_PAGE_INVALID: 400,
    X_JOB_TENANT_REQUIRED: 400,
    X_VALUE_INVALID: 400,
    X_JOB_TENANT_MISMATCH: 403,
    X_ADMIN_WRITE_REFUSED: 403,
    X_JOB_NOT_FOUND: 404,
    X_TASK_NOT_FOUND: 404,
    X_QUEUE_NOT_FOUND: 404,
    X_JOB_DUPLICATE: 409,
    X_JOB_KEY_BUSY: 409,
    X_JOB_NOT_CANCELLABLE: 409,
    X_JOB_NOT_REQUEUEABLE: 409,
    X_JOB_NOT_REMOVABLE: 409,
    X_JOB_NOT_PROMOTABLE: 409,
    X_JOB_PAYLOAD_TOO_LARGE: 413,
    X_NOT_IMPLEMENTED: 501,
    X_DRIVER_UNAVAILABLE: 503,
    X_DRAINING: 503,
  });

/** The HTTP status for a code: its row of {@link JOBS_ERROR_HTTP_STATUS}, else 500. */
export function jobsErrorHttpStatus(code: string): number {
  return (JOBS_ERROR_HTTP_STATUS as Readonly<Record<string, number | undefined>>)[code] ?? 500;
}
