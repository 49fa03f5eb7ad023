import { JobsError } from './jobs-error';

/**
 * A value handed to a driver, a step or the operator surface breaks the value contract; the message names the field.
 * The contract (the README's "Value contract"): identifiers well-formed UTF-16 with no NUL and a bounded length,
 * numbers in their column's range, times in years 0001–9999, options inside their enum, JSON nested at most 64
 * levels. Enqueue through a handle reports the same faults as `X_JOB_OPTIONS_INVALID`, `X_JOB_INPUT_INVALID` or
 * `X_JOB_DECLARATION_INVALID` instead, naming the job.
 */
export class ValueInvalidError extends JobsError {
  constructor(field: string, reason: string, fix?: string) {
    super('X_VALUE_INVALID', `${field} ${reason}.`, {
      fix: fix ?? 'Pass a value inside the bounds the README lists under "Value contract".',
      meta: { field },
    });
  }
}
