import { JobTimeoutError, StepDurationInvalidError } from '../errors/runtime-errors';
import { DURATION_FORMS, describeDurationValue, parseDuration } from '../util/duration';
import { MAX_DURATION_MS } from '../values/bounds';

/** The `X_JOB_TIMEOUT` of a wait that ran past its timeout (`waiting`: its stored record, when there is one). */
export function waitTimedOut(
  name: string,
  event: string,
  waiting: { since: number; timeoutAt: number | null } | undefined,
): JobTimeoutError {
  const ms =
    waiting === undefined || waiting.timeoutAt === null ? 0 : waiting.timeoutAt - waiting.since;
  return new JobTimeoutError(`waitForEvent "${name}" for ${event}`, ms);
}

/**
 * Whole milliseconds in a duration a step was handed (a number's fraction rounded, as a string's is: the row's run time
 * is whole), or `X_STEP_DURATION_INVALID` naming the value and the forms.
 */
export function stepDuration(step: string, field: string, value: unknown): number {
  const parsed = parseDuration(value);
  const ms = parsed === undefined ? undefined : Math.round(parsed);
  // past 100 years the wake time could fall beyond year 9999, which no driver stores
  if (ms === undefined || ms > MAX_DURATION_MS) {
    throw new StepDurationInvalidError(
      step,
      field,
      describeDurationValue(value),
      `${DURATION_FORMS}, of at most 100 years`,
    );
  }
  return ms;
}

/** An abort reason as a step's refusal names it. */
export function describeReason(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  return String(reason);
}
