import { JobInputInvalidError, type JobInputIssue } from '../../errors/declaration-errors';
import type { JobsError } from '../../errors/jobs-error';

/** What `JobsErrorFilter` answers: Nest's usual `statusCode` and `message`, plus the stable code. */
export interface JobsErrorBody {
  /** The HTTP status. */
  readonly statusCode: number;
  /** The stable `X_…` code: what a client matches on. */
  readonly code: string;
  /** What happened (4xx); for a 5xx only the status's reason, so no server detail reaches the caller. */
  readonly message: string;
  /** What the caller can do about it (4xx only). */
  readonly fix?: string;
  /** `X_JOB_INPUT_INVALID`: each problem, its path in the input and, for `enqueueMany`, the item's `index`. */
  readonly issues?: readonly JobInputIssue[];
}

/** The reason phrase of the 5xx statuses the filter answers. */
const REASON: Readonly<Record<number, string>> = {
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

/**
 * The body for `error` at `status`. A 4xx is the caller's to fix, so it carries the message, the fix and the issue
 * paths. A 5xx carries the code and the reason only: the message of a server fault can name hosts, databases and job
 * internals, which the server log has and the caller must not.
 */
export function jobsErrorBody(error: JobsError, status: number): JobsErrorBody {
  if (status >= 500) {
    return {
      statusCode: status,
      code: error.code,
      message: REASON[status] ?? 'Internal Server Error',
    };
  }
  return {
    statusCode: status,
    code: error.code,
    message: error.message,
    ...(error.fix === undefined ? {} : { fix: error.fix }),
    ...(error instanceof JobInputInvalidError ? { issues: error.issues } : {}),
  };
}
