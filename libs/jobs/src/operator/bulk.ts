import { assertBulkState, type BulkOperation } from '../driver/bulk-filter';
import {
  type JobBulkFilter,
  type JobListFilter,
  type PromotableState,
} from '../driver/introspection';
import type { JobDriver } from '../driver/job-driver';
import { ValueInvalidError } from '../errors/value-errors';
import { FINISHED_STATES, LIVE_STATES, type JobState } from '../driver/job-row';
import { actionSummary, type JobActionOptions } from './job-actions';
import type { JobSummaryView } from './job-views';
import { introspectionOf } from './operator-driver';

/** The rows one bulk operation covers: one state, narrowed by queue, job name and tenant. */
export type BulkFilter = JobBulkFilter<JobState>;

/** A bulk operation. */
export type BulkAction = 'requeue' | 'remove' | 'promote';

/** What one bulk call did: rows it moved, and rows a second call could still move ("call until zero" ends). */
export interface BulkView {
  /** The bulk operation that ran. */
  readonly action: BulkAction;
  /** The filter it walked. */
  readonly filter: BulkFilter;
  /** Rows it moved (or removed). */
  readonly affected: number;
  /** Rows of the filter a second call could still move. */
  readonly remaining: number;
}

/** What a bulk call would cover, read without changing anything: the first rows it matches. */
export interface BulkPreviewView {
  /** The bulk operation previewed. */
  readonly action: BulkAction;
  /** The filter it would walk. */
  readonly filter: BulkFilter;
  /** The rows matched, counted up to `atLeast`'s page: exact when `more` is false. */
  readonly matched: number;
  /** True when more rows than `matched` match. */
  readonly more: boolean;
  /** The first matching rows, newest first (at most 20). */
  readonly sample: readonly JobSummaryView[];
}

/**
 * One bounded bulk call (`MAX_BULK_ROWS` rows at most): `requeue` re-queues finished rows, `remove` deletes rows in any
 * state but running, `promote` makes waiting rows (`delayed`, or `ready` backing off) due now. Answers
 * `{ affected, remaining }`; call again until `remaining` is 0. Refusals are the driver's: a live state to requeue is
 * `X_JOB_NOT_REQUEUEABLE`, `running` to remove `X_JOB_NOT_REMOVABLE`, a state outside `PROMOTABLE_STATES` to promote
 * `X_JOB_NOT_PROMOTABLE`.
 */
export async function bulkJobs(
  driver: JobDriver,
  action: BulkAction,
  filter: BulkFilter,
): Promise<BulkView> {
  const introspect = introspectionOf(driver, `bulk ${action}`);
  const { affected, remaining } =
    action === 'requeue'
      ? await introspect.requeueMany(filter)
      : action === 'remove'
        ? await introspect.removeMany(filter)
        : // a state outside PROMOTABLE_STATES is the driver's X_JOB_NOT_PROMOTABLE, on every driver alike
          await introspect.promoteMany(filter as JobBulkFilter<PromotableState>);
  return { action, filter, affected, remaining };
}

const PREVIEW_PAGE = 200;
const OPERATION: Readonly<Record<BulkAction, BulkOperation>> = {
  requeue: 'requeueMany',
  remove: 'removeMany',
  promote: 'promoteMany',
};
const STATES: readonly string[] = [...LIVE_STATES, ...FINISHED_STATES];
const SAMPLE = 20;

/**
 * What {@link bulkJobs} would cover, without changing anything: a count of up to 200 matching rows and a sample. A
 * state the bulk call would refuse is refused here with the same code (`X_JOB_NOT_REQUEUEABLE`,
 * `X_JOB_NOT_REMOVABLE`, `X_JOB_NOT_PROMOTABLE`): a dry run never promises what the call will not do.
 */
export async function previewBulk(
  driver: JobDriver,
  action: BulkAction,
  filter: BulkFilter,
  options: JobActionOptions = {},
): Promise<BulkPreviewView> {
  // no state: the bulk call refuses it, so a preview of every state would promise rows it will never move
  if (filter.state === undefined) {
    throw new ValueInvalidError(
      `${OPERATION[action]}(filter).state`,
      'is required: a bulk operation walks one state',
    );
  }
  // a state that is none of the eight is left to list(), which names it as X_VALUE_INVALID
  if (STATES.includes(filter.state)) assertBulkState(OPERATION[action], filter);
  // the fields a bulk call walks, and no other: a list field riding on the object (an idPrefix, a cursor) would
  // narrow the preview while the bulk call moves the whole set
  const { state, queue, name, tenantId } = filter;
  const listFilter: JobListFilter = {
    state,
    ...(queue === undefined ? {} : { queue }),
    ...(name === undefined ? {} : { name }),
    ...(tenantId === undefined ? {} : { tenantId }),
    limit: PREVIEW_PAGE,
  };
  const rows = await introspectionOf(driver, `bulk ${action}`).list(listFilter);
  return {
    action,
    filter,
    matched: rows.length,
    more: rows.length === PREVIEW_PAGE,
    sample: rows.slice(0, SAMPLE).map((row) => actionSummary(row, options)),
  };
}
