import type { JobListFilter } from '../driver/introspection';
import type { JobDriver } from '../driver/job-driver';
import type { JobState } from '../driver/job-row';
import { NotImplementedError } from '../errors/runtime-errors';
import { jobSummary, type JobSummaryView } from './job-views';
import { introspectionOf } from './operator-driver';

/** The rows one bulk operation covers: one state, narrowed by queue, job name and tenant. */
export interface BulkFilter {
  readonly state: JobState;
  readonly queue?: string;
  readonly name?: string;
  readonly tenantId?: string;
}

/** A bulk operation. */
export type BulkAction = 'requeue' | 'remove' | 'promote';

/** What one bulk call did: rows it moved, and rows a second call could still move ("call until zero" ends). */
export interface BulkView {
  readonly action: BulkAction;
  readonly filter: BulkFilter;
  readonly affected: number;
  readonly remaining: number;
}

/** What a bulk call would cover, read without changing anything: the first rows it matches. */
export interface BulkPreviewView {
  readonly action: BulkAction;
  readonly filter: BulkFilter;
  /** The rows matched, counted up to `atLeast`'s page: exact when `more` is false. */
  readonly matched: number;
  /** True when more rows than `matched` match. */
  readonly more: boolean;
  /** The first matching rows, newest first (at most 20). */
  readonly sample: readonly JobSummaryView[];
}

type BulkMember = (filter: BulkFilter) => Promise<{ affected: number; remaining: number }>;

const MEMBER: Record<BulkAction, 'requeueMany' | 'removeMany' | 'promoteMany'> = {
  requeue: 'requeueMany',
  remove: 'removeMany',
  promote: 'promoteMany',
};

/**
 * One bounded bulk call (`MAX_BULK_ROWS` rows at most): `requeue` re-queues finished rows, `remove` deletes rows in any
 * state but running, `promote` makes waiting rows due now. Answers `{ affected, remaining }`; call again until
 * `remaining` is 0.
 */
export async function bulkJobs(
  driver: JobDriver,
  action: BulkAction,
  filter: BulkFilter,
): Promise<BulkView> {
  const introspect = introspectionOf(driver, `bulk ${action}`) as unknown as Partial<
    Record<(typeof MEMBER)[BulkAction], BulkMember>
  >;
  const member = introspect[MEMBER[action]];
  if (typeof member !== 'function') throw new NotImplementedError(`${MEMBER[action]}()`);
  const { affected, remaining } = await member.call(introspect, filter);
  return { action, filter, affected, remaining };
}

const PREVIEW_PAGE = 200;
const SAMPLE = 20;

/** What {@link bulkJobs} would cover, without changing anything: a count of up to 200 matching rows and a sample. */
export async function previewBulk(
  driver: JobDriver,
  action: BulkAction,
  filter: BulkFilter,
): Promise<BulkPreviewView> {
  const listFilter: JobListFilter = { ...filter, limit: PREVIEW_PAGE };
  const rows = await introspectionOf(driver, `bulk ${action}`).list(listFilter);
  return {
    action,
    filter,
    matched: rows.length,
    more: rows.length === PREVIEW_PAGE,
    sample: rows.slice(0, SAMPLE).map(jobSummary),
  };
}
