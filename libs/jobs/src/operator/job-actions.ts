import type { JobDriver } from '../driver/job-driver';
import type { JobRow } from '../driver/job-row';
import { JobNotCancellableError } from '../errors/operator-errors';
import { operatorJobId } from '../values/operator';
import type { OperatorDeclarations } from './declarations';
import type { JobSummaryView } from './job-views';
import { introspectionOf } from './operator-driver';
import { scrubbedSummary, secretsOf } from './scrubbed-summary';

/** Options of {@link retryFromStep}, {@link cancelJob}, {@link promoteJob} and `previewBulk`. */
export interface JobActionOptions {
  /**
   * The app's declarations: the values a job's `redact:` paths reach in its input are scrubbed from the error text and
   * the progress note of the row answered (as `listJobs` does). Without them the row shows what was written.
   */
  readonly declarations?: OperatorDeclarations;
}

/** The row answered by an action, scrubbed by the declarations' redaction. */
export function actionSummary(row: JobRow, options: JobActionOptions): JobSummaryView {
  return scrubbedSummary(row, secretsOf(row, options.declarations));
}

/**
 * Re-queues one finished job (done, failed, dead, cancelled) as a fresh run; with `fromStep`, that step and every
 * step that started after it are dropped so the run redoes them (earlier steps replay from storage). A live job is
 * `X_JOB_NOT_REQUEUEABLE`, a key a live job holds `X_JOB_DUPLICATE`, an unknown id `X_JOB_NOT_FOUND`.
 */
export async function retryFromStep(
  driver: JobDriver,
  id: string,
  fromStep?: string,
  options: JobActionOptions = {},
): Promise<JobSummaryView> {
  const introspect = introspectionOf(driver, 'retryFromStep');
  const row = await introspect.requeue(
    operatorJobId(id),
    fromStep === undefined ? {} : { fromStep },
  );
  return actionSummary(row, options);
}

/**
 * Stops a live job (ready, delayed, running, suspended): a queued row is cancelled at once; a running one stops at its
 * next heartbeat, and its own settle can no longer land. A finished row, an unknown id, or a driver with no cancel is
 * `X_JOB_NOT_CANCELLABLE` — the row is left exactly as it ended.
 */
export async function cancelJob(
  driver: JobDriver,
  given: string,
  reason?: string,
  options: JobActionOptions = {},
): Promise<JobSummaryView> {
  const id = operatorJobId(given);
  const introspect = driver.introspect;
  if (introspect === undefined) throw new JobNotCancellableError(id, 'on a driver with no cancel');
  const row = await introspect.cancel(id, reason);
  if (row !== undefined) return actionSummary(row, options);
  const current = await driver.get(id);
  throw new JobNotCancellableError(id, current === undefined ? 'unknown' : current.state);
}

/** Deletes one job and its steps; answers the row as it was. Running: `X_JOB_NOT_REMOVABLE`; unknown: `X_JOB_NOT_FOUND`. */
export async function removeJob(
  driver: JobDriver,
  given: string,
): Promise<{ readonly removed: string }> {
  const id = operatorJobId(given);
  await introspectionOf(driver, 'removeJob').remove(id);
  return { removed: id };
}

/** A job waiting on its run time (delayed, or backing off) becomes due now. Otherwise `X_JOB_NOT_PROMOTABLE`. */
export async function promoteJob(
  driver: JobDriver,
  id: string,
  options: JobActionOptions = {},
): Promise<JobSummaryView> {
  const row = await introspectionOf(driver, 'promoteJob').promote(operatorJobId(id));
  return actionSummary(row, options);
}
