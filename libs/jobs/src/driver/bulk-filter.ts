import {
  BulkNotPromotableError,
  BulkNotRemovableError,
  BulkNotRequeueableError,
} from '../errors/operator-errors';
import { PROMOTABLE_STATES, type JobBulkFilter } from './introspection';
import { FINISHED_STATES, type JobState } from './job-row';

/** The three bulk operations, by the member that runs them. */
export type BulkOperation = 'requeueMany' | 'removeMany' | 'promoteMany';

/** Whether `state` is one `operation` can move rows out of. */
export function bulkStateAllowed(operation: BulkOperation, state: JobState): boolean {
  switch (operation) {
    case 'requeueMany':
      return (FINISHED_STATES as readonly string[]).includes(state);
    case 'removeMany':
      return state !== 'running';
    case 'promoteMany':
      return (PROMOTABLE_STATES as readonly string[]).includes(state);
  }
}

/**
 * Refuses a bulk filter whose state the operation cannot move rows out of, with the operation's own code: a live
 * state to `requeueMany` is `X_JOB_NOT_REQUEUEABLE`, `running` to `removeMany` is `X_JOB_NOT_REMOVABLE`, a state no
 * row waits on its run time in to `promoteMany` is `X_JOB_NOT_PROMOTABLE`. The state itself is checked first (one of
 * the eight, else `X_VALUE_INVALID`).
 */
export function assertBulkState(operation: BulkOperation, filter: JobBulkFilter): void {
  if (bulkStateAllowed(operation, filter.state)) return;
  if (operation === 'requeueMany') throw new BulkNotRequeueableError(filter.state);
  if (operation === 'removeMany') throw new BulkNotRemovableError(filter.state);
  throw new BulkNotPromotableError(filter.state);
}
