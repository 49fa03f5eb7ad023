import type { BackfillLedger } from '../backfill/ledger';
import { inspectBackfillOfJob } from '../backfill/inspect';
import type { JobListFilter } from '../driver/introspection';
import type { JobDriver } from '../driver/job-driver';
import type { WorkerInfo } from '../driver/workers';
import type { OperatorDeclarations } from '../operator/declarations';
import { inspectJob } from '../operator/inspect-job';
import { cancelJob, retryFromStep } from '../operator/job-actions';
import type { JobPageView, JobSummaryView, JobView } from '../operator/job-views';
import { inspectDeadLetters, listJobs } from '../operator/list-jobs';
import {
  inspectQueues,
  inspectWorkers,
  pauseQueue,
  resumeQueue,
  type QueuePauseView,
  type QueueView,
} from '../operator/queues';
import {
  inspectTasks,
  pauseTask,
  resumeTask,
  type TaskPauseView,
  type TaskView,
} from '../operator/tasks';
import type { Clock } from '../util/clock';

/**
 * The part of the operator projection the MCP tools read and move — every answer is the projection's own JSON, and
 * the tools reach nothing else. `JobsService` is one (an app's module); {@link mcpOperatorOver} builds one over a
 * driver (the `x mcp` command line).
 */
export interface McpOperator {
  /** Every queue's counts. */
  inspectQueues(): Promise<readonly QueueView[]>;
  /** One page of job rows, newest first. */
  listJobs(filter?: JobListFilter): Promise<JobPageView>;
  /** Everything about one job. */
  inspectJob(id: string): Promise<JobView>;
  /** One page of dead-lettered rows. */
  inspectDeadLetters(filter?: Omit<JobListFilter, 'state'>): Promise<JobPageView>;
  /** Every live worker. */
  inspectWorkers(): Promise<readonly WorkerInfo[]>;
  /** Every task, with its pause flag, last fire and next run. */
  inspectTasks(): Promise<readonly TaskView[]>;
  /** Re-queues a finished job, from `fromStep` when given. */
  retryFromStep(id: string, fromStep?: string): Promise<JobSummaryView>;
  /** Stops a live job. */
  cancelJob(id: string, reason?: string): Promise<JobSummaryView>;
  /**
   * Pauses a queue: no worker claims from it. A name no row holds, not paused and no declared job is enqueued on, is
   * `X_QUEUE_NOT_FOUND`.
   */
  pauseQueue(queue: string): Promise<QueuePauseView>;
  /** Resumes a paused queue. A name nothing knows is `X_QUEUE_NOT_FOUND`. */
  resumeQueue(queue: string): Promise<QueuePauseView>;
  /**
   * Pauses a task: the scheduler leader dispatches none of its occurrences. A name neither declared nor remembered by
   * the backend (a fire or a pause) is `X_TASK_NOT_FOUND`.
   */
  pauseTask(task: string): Promise<TaskPauseView>;
  /** Resumes a paused task; its own `catchUp` decides what it missed. A name nothing knows is `X_TASK_NOT_FOUND`. */
  resumeTask(task: string): Promise<TaskPauseView>;
}

/** What {@link mcpOperatorOver} reads through. */
export interface McpOperatorSource {
  /** The driver whose introspection the tools read and move. */
  readonly driver: JobDriver;
  /** The app's declarations: inputs are redacted by their `redact:` paths, tasks show cron and next run. */
  readonly declarations?: OperatorDeclarations;
  /** The backend's backfill ledger, where it keeps one (`inspect_job` fills its `backfill` slot from it). */
  readonly backfills?: BackfillLedger;
  /** Where a task's "next" is counted from (default: the system clock). */
  readonly clock?: Clock;
}

/** The operator projection over one driver, as `JobsService` answers it inside an app. */
export function mcpOperatorOver(source: McpOperatorSource): McpOperator {
  const { driver, declarations, backfills, clock } = source;
  // the app's declarations, when given: redaction, task schedules, and the names a pause or resume may act on
  const declared = declarations === undefined ? {} : { declarations };
  return {
    inspectQueues: () => inspectQueues(driver),
    listJobs: (filter) => listJobs(driver, filter, declared),
    inspectJob: (id) =>
      inspectJob(driver, id, {
        backfill: (row) => inspectBackfillOfJob(backfills, row.id),
        ...declared,
      }),
    inspectDeadLetters: (filter) => inspectDeadLetters(driver, filter, declared),
    inspectWorkers: () => inspectWorkers(driver),
    inspectTasks: () =>
      inspectTasks(driver, {
        ...declared,
        ...(clock === undefined ? {} : { clock }),
      }),
    retryFromStep: (id, fromStep) => retryFromStep(driver, id, fromStep, declared),
    cancelJob: (id, reason) => cancelJob(driver, id, reason, declared),
    pauseQueue: (queue) => pauseQueue(driver, queue, declared),
    resumeQueue: (queue) => resumeQueue(driver, queue, declared),
    pauseTask: (task) => pauseTask(driver, task, declared),
    resumeTask: (task) => resumeTask(driver, task, declared),
  };
}
