import { DEFAULT_JOB_PAGE, jobCursor, type JobListFilter } from '../driver/introspection';
import type { JobDriver } from '../driver/job-driver';
import type { OperatorDeclarations } from './declarations';
import type { JobPageView } from './job-views';
import { introspectionOf } from './operator-driver';
import { scrubbedSummary, secretsOf } from './scrubbed-summary';

/** Options of {@link listJobs} and {@link inspectDeadLetters}. */
export interface ListJobsOptions {
  /**
   * The app's declarations: the values a job's `redact:` paths reach in its input are scrubbed from the error text and
   * the progress note each row shows (as `inspectJob` does). Without them rows show what was written.
   */
  readonly declarations?: OperatorDeclarations;
}

/**
 * One page of jobs, newest first, with the cursors around it: `next` continues to older rows (null once a page came
 * back shorter than its limit), `previous` back to newer ones (null on the first page). Every filter of
 * `JobIntrospection.list` applies; its bounds and refusals (`X_JOB_PAGE_INVALID`) are the driver's.
 */
export async function listJobs(
  driver: JobDriver,
  filter: JobListFilter = {},
  options: ListJobsOptions = {},
): Promise<JobPageView> {
  const rows = await introspectionOf(driver, 'listJobs').list(filter);
  const limit = filter.limit ?? DEFAULT_JOB_PAGE;
  const first = rows[0];
  const last = rows[rows.length - 1];
  const full = rows.length >= limit;
  const backwards = filter.before !== undefined;
  return {
    jobs: rows.map((row) => scrubbedSummary(row, secretsOf(row, options.declarations))),
    next: last === undefined ? null : backwards || full ? jobCursor(last) : null,
    previous:
      first === undefined
        ? null
        : backwards
          ? full
            ? jobCursor(first)
            : null
          : filter.after !== undefined
            ? jobCursor(first)
            : null,
  };
}

/** One page of the dead-letter queue (rows in state `dead`), newest first; `x jobs dead`. */
export function inspectDeadLetters(
  driver: JobDriver,
  filter: Omit<JobListFilter, 'state'> = {},
  options: ListJobsOptions = {},
): Promise<JobPageView> {
  return listJobs(driver, { ...filter, state: 'dead' }, options);
}
