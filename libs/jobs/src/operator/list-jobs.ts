import { DEFAULT_JOB_PAGE, jobCursor, type JobListFilter } from '../driver/introspection';
import type { JobDriver } from '../driver/job-driver';
import { jobSummary, type JobPageView } from './job-views';
import { introspectionOf } from './operator-driver';

/**
 * One page of jobs, newest first, with the cursors around it: `next` continues to older rows (null once a page came
 * back shorter than its limit), `previous` back to newer ones (null on the first page). Every filter of
 * `JobIntrospection.list` applies; its bounds and refusals (`X_JOB_PAGE_INVALID`) are the driver's.
 */
export async function listJobs(
  driver: JobDriver,
  filter: JobListFilter = {},
): Promise<JobPageView> {
  const rows = await introspectionOf(driver, 'listJobs').list(filter);
  const limit = filter.limit ?? DEFAULT_JOB_PAGE;
  const first = rows[0];
  const last = rows[rows.length - 1];
  const full = rows.length >= limit;
  const backwards = filter.before !== undefined;
  return {
    jobs: rows.map(jobSummary),
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
): Promise<JobPageView> {
  return listJobs(driver, { ...filter, state: 'dead' });
}
