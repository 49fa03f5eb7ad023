import type { TaskFireRecord } from '../scheduler/scheduler-state';
import type { CounterBucket, CounterQuery, CounterTotals } from './counters';
import type { JobRow, JobState } from './job-row';
import type { WorkerInfo } from './workers';

/** The largest page `list()` answers. */
export const MAX_JOB_PAGE = 200;
/** The page size when none is asked for. */
export const DEFAULT_JOB_PAGE = 100;
/**
 * The most rows one `requeueMany` / `removeMany` / `promoteMany` call moves. The bound is spent only on rows the call
 * can move; what is left is answered as `remaining`, so "call until `remaining` is 0" ends.
 */
export const MAX_BULK_ROWS = 1_000;
/** The states `promoteMany` takes: the rows that can be waiting on their run time (a ready row backing off). */
export const PROMOTABLE_STATES = ['delayed', 'ready'] as const;
/** A state {@link JobIntrospection.promoteMany} takes. */
export type PromotableState = (typeof PROMOTABLE_STATES)[number];

/** A filter over job rows, and a page of it. */
export interface JobListFilter {
  /** Rows of this queue only. */
  readonly queue?: string;
  /** Rows of this job name only. */
  readonly name?: string;
  /** Rows in this state only. */
  readonly state?: JobState;
  /** Rows of this tenant only. */
  readonly tenantId?: string;
  /**
   * Rows whose id starts with it: a lower-case prefix of a UUID, dashes where a UUID has them (`0194f3a2`,
   * `0194f3a2-7c1`). The short form of an id an operator copies from a table.
   */
  readonly idPrefix?: string;
  /** Rows created at or after it (epoch ms, inclusive). */
  readonly createdFrom?: number;
  /** Rows created before it (epoch ms, exclusive): adjacent windows never share a row. */
  readonly createdTo?: number;
  /** Rows per page: 1 to {@link MAX_JOB_PAGE} (default {@link DEFAULT_JOB_PAGE}). */
  readonly limit?: number;
  /** `jobCursor(lastRow)` of the previous page: the next (older) rows. */
  readonly after?: string;
  /** `jobCursor(firstRow)`: the rows just newer than it, still newest first. */
  readonly before?: string;
}

/** The set a bulk operation walks: one state, narrowed by queue, job name and tenant. */
export interface JobBulkFilter<S extends JobState = JobState> {
  /** The one state the operation walks. */
  readonly state: S;
  /** Rows of this queue only. */
  readonly queue?: string;
  /** Rows of this job name only. */
  readonly name?: string;
  /** Rows of this tenant only. */
  readonly tenantId?: string;
}

/** What one bulk call did: rows it moved (at most {@link MAX_BULK_ROWS}), and what a second call could still move. */
export interface JobBulkResult {
  /** Rows this call moved (or removed). */
  readonly affected: number;
  /** Rows of the filter a second call could still move. */
  readonly remaining: number;
}

/** The scheduler's record of a fire that went through `driver.enqueue` (`recordTaskFire`). */
export interface TaskFireNote {
  /** The task name. */
  readonly task: string;
  /** The occurrence that fired (epoch ms). */
  readonly occurrenceMs: number;
}

const UUID_SHAPE = 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx';

/**
 * The lowest and highest id an id prefix spans: the prefix padded to a whole UUID with `0` and with `f`. A driver
 * answers `idPrefix` as this range over its id order (the primary key), never as a text match over every id.
 */
export function idPrefixRange(prefix: string): { readonly low: string; readonly high: string } {
  const pad = (digit: string): string =>
    prefix + UUID_SHAPE.slice(prefix.length).replace(/x/g, digit);
  return { low: pad('0'), high: pad('f') };
}

/** The opaque cursor of one row for paging: its id (UUIDv7 ids sort by creation). */
export function jobCursor(row: Pick<JobRow, 'id'>): string {
  return row.id;
}

/**
 * The operator surface over one driver: every operator capability is a member, and the CLI, the admin page and the
 * projections read nothing else. Every driver wraps it in `checkedIntrospection`, so a value no row could hold is
 * `X_VALUE_INVALID` naming the argument on all of them alike.
 */
export interface JobIntrospection {
  /**
   * One page of rows, newest first. A page shorter than its limit is the last. A limit above {@link MAX_JOB_PAGE},
   * both cursors at once, or a cursor no page produced is `X_JOB_PAGE_INVALID`.
   */
  list(filter?: JobListFilter): Promise<readonly JobRow[]>;
  /**
   * Stops a live job; answers the cancelled row, or undefined when it was not live (or unknown). A running attempt
   * loses its claim: its next heartbeat answers false (the worker aborts the attempt) and its settle cannot land.
   */
  cancel(id: string, reason?: string): Promise<JobRow | undefined>;
  /** Deletes one non-running job and its steps. Running: `X_JOB_NOT_REMOVABLE`; unknown: `X_JOB_NOT_FOUND`. */
  remove(id: string): Promise<void>;
  /**
   * Re-queues one finished job; `fromStep` drops that step and every later one (a name no stored step carries drops
   * nothing: the step that failed never completed). Live: `X_JOB_NOT_REQUEUEABLE`; its key held by a live job:
   * `X_JOB_DUPLICATE`; unknown: `X_JOB_NOT_FOUND`.
   */
  requeue(id: string, options?: { readonly fromStep?: string }): Promise<JobRow>;
  /** A job waiting on its run time becomes due now. Otherwise `X_JOB_NOT_PROMOTABLE`; unknown: `X_JOB_NOT_FOUND`. */
  promote(id: string): Promise<JobRow>;
  /**
   * Re-queues up to {@link MAX_BULK_ROWS} finished rows of the filter, oldest first. A row whose key a live job holds
   * stays, and of several finished rows sharing one key only the oldest moves; neither is counted in `remaining`. A
   * live `state` is `X_JOB_NOT_REQUEUEABLE`.
   */
  requeueMany(filter: JobBulkFilter): Promise<JobBulkResult>;
  /** Deletes up to {@link MAX_BULK_ROWS} rows of the filter, oldest first. `state: 'running'` is `X_JOB_NOT_REMOVABLE`. */
  removeMany(filter: JobBulkFilter): Promise<JobBulkResult>;
  /**
   * Makes up to {@link MAX_BULK_ROWS} rows of the filter that wait on their run time due now, oldest first;
   * `remaining` is the rows still waiting. A state outside {@link PROMOTABLE_STATES} is `X_JOB_NOT_PROMOTABLE`.
   */
  promoteMany(filter: JobBulkFilter<PromotableState>): Promise<JobBulkResult>;
  /** A paused queue is claimed by no worker; enqueues still land. Effective at every worker's next claim. */
  pauseQueue(queue: string): Promise<void>;
  /** Lets workers claim from a paused queue again. Effective at every worker's next claim. */
  resumeQueue(queue: string): Promise<void>;
  /** The paused queues, by name. */
  pausedQueues(): Promise<readonly string[]>;
  /** A paused task is not dispatched; on resume its own `catchUp` decides what it missed. Idempotent. */
  pauseTask(task: string): Promise<void>;
  /** Lets a paused task dispatch again. */
  resumeTask(task: string): Promise<void>;
  /** The paused tasks, by name. */
  pausedTasks(): Promise<readonly string[]>;
  /**
   * Per task, the last occurrence that DISPATCHED, by task name; at most `MAX_TASK_FIRES` rows. Arming a task or
   * skipping missed occurrences is not a fire. The next fire is `nextTaskRun(task, from)`, no scheduler needed.
   */
  taskFires(): Promise<readonly TaskFireRecord[]>;
  /**
   * Records a fire that went through `driver.enqueue` (a scheduler state that keeps its watermarks elsewhere); the
   * PostgreSQL and Redis scheduler states record theirs in the fire itself.
   */
  recordTaskFire(fire: TaskFireNote): Promise<void>;
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
