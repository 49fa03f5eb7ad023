import type { CounterBucket, CounterQuery, CounterTotals } from './counters';
import type { JobRow, JobState } from './job-row';
import type { WorkerInfo } from './workers';

/** The largest page `list()` answers. */
export const MAX_JOB_PAGE = 200;
/** The page size when none is asked for. */
export const DEFAULT_JOB_PAGE = 100;

/** A filter over job rows, and a page of it. */
export interface JobListFilter {
  readonly queue?: string;
  readonly name?: string;
  readonly state?: JobState;
  readonly tenantId?: string;
  readonly limit?: number;
  /** `jobCursor(lastRow)` of the previous page: the next (older) rows. */
  readonly after?: string;
  /** `jobCursor(firstRow)`: the rows just newer than it, still newest first. */
  readonly before?: string;
}

/** The opaque cursor of one row for paging: its id (UUIDv7 ids sort by creation). */
export function jobCursor(row: Pick<JobRow, 'id'>): string {
  return row.id;
}

/** The operator surface over one driver. */
export interface JobIntrospection {
  /** One page of rows, newest first. */
  list(filter?: JobListFilter): Promise<readonly JobRow[]>;
  /** Stops a live job; answers the cancelled row, or undefined when it was not live (or unknown). */
  cancel(id: string, reason?: string): Promise<JobRow | undefined>;
  /** Deletes one non-running job and its steps. */
  remove(id: string): Promise<void>;
  /** Re-queues one finished job; `fromStep` drops that step and every later one. */
  requeue(id: string, options?: { readonly fromStep?: string }): Promise<JobRow>;
  /** A job waiting on its run time becomes due now. */
  promote(id: string): Promise<JobRow>;
  /** A paused queue is claimed by no worker; enqueues still land. */
  pauseQueue(queue: string): Promise<void>;
  resumeQueue(queue: string): Promise<void>;
  pausedQueues(): Promise<readonly string[]>;
  /** Every live worker (its row was renewed within one visibility timeout), by id. */
  workers(): Promise<readonly WorkerInfo[]>;
  /** One job's history: every bucket of every tier starting at or after `sinceMs`, oldest first. */
  counters(query: CounterQuery): Promise<readonly CounterBucket[]>;
  /** Per job name, its buckets starting at or after `sinceMs` (default 0: all) summed; by name. */
  counterTotals(sinceMs?: number): Promise<readonly CounterTotals[]>;
  /**
   * Folds every bucket past its tier into the next tier (`COUNTER_TIERS`); answers how many buckets it folded.
   * Idempotent: a second call folds nothing, and two at once never count a bucket twice.
   */
  rollupCounters(): Promise<number>;
}
