import { Injectable } from '@nestjs/common';
import type { EnqueueResult, JobDriver, QueueStats } from '../driver/job-driver';
import type { JobDescriptor } from '../declare/descriptor';
import type { EnqueueActor, EnqueueOptions, JobHandle } from '../declare/handle';
import type { TaskDescriptor, TaskEnqueueOptions, TaskHandle } from '../declare/task';
import type { PublishedEvent } from '../events/event-bus';
import { eventPublishOptions, type PublishEventOptions } from '../events/publish-event';
import { inspectBackfillOfJob } from '../backfill/inspect';
import type { JobListFilter } from '../driver/introspection';
import type { WorkerInfo } from '../driver/workers';
import {
  bulkJobs,
  previewBulk,
  type BulkAction,
  type BulkFilter,
  type BulkPreviewView,
  type BulkView,
} from '../operator/bulk';
import { inspectManifest, type OperatorDeclarations } from '../operator/declarations';
import { inspectJob, type InspectJobOptions } from '../operator/inspect-job';
import { cancelJob, promoteJob, removeJob, retryFromStep } from '../operator/job-actions';
import type { JobPageView, JobSummaryView, JobView } from '../operator/job-views';
import { inspectDeadLetters, listJobs } from '../operator/list-jobs';
import {
  inspectQueues,
  inspectStats,
  inspectWorkers,
  pauseQueue,
  resumeQueue,
  type QueuePauseView,
  type QueueView,
  type StatsView,
} from '../operator/queues';
import {
  inspectTasks,
  nextTaskRuns,
  pauseTask,
  resumeTask,
  type TaskPauseView,
  type TaskView,
} from '../operator/tasks';
import { JobRegistry } from '../registry/job-registry';
import type { JsonValue } from '../util/json';
import { JobsRuntime } from './jobs.runtime';
import { TaskRegistry } from './task.registry';

/**
 * The DI path to the jobs runtime. `enqueue` and `as` go through the same facade as `handle.enqueue()`, installed at
 * `onApplicationBootstrap`: called earlier (or after close) they are `X_DRIVER_UNAVAILABLE`.
 */
@Injectable()
export class JobsService {
  constructor(
    private readonly runtime: JobsRuntime,
    private readonly registry: JobRegistry,
    private readonly taskRegistry: TaskRegistry,
  ) {}

  /** Queues one run of `handle`; the same as `handle.enqueue(input, options)`. */
  enqueue<In, Out, R>(
    handle: JobHandle<In, Out, R>,
    input: NoInfer<In>,
    options?: EnqueueOptions,
  ): Promise<EnqueueResult> {
    return handle.enqueue(input, options);
  }

  /**
   * Queues one run per input in ONE write, answering `{ id, runId, deduped }` per input in order; the same as
   * `handle.enqueueMany(inputs, options)`. Invalid items are all reported in one `X_JOB_INPUT_INVALID` whose issues carry
   * each item's `index`, and nothing is written. Inside a transaction (`{ tx }`, `{ manager }`, the request's) every row
   * is staged in it in one statement.
   */
  enqueueMany<In, Out, R>(
    handle: JobHandle<In, Out, R>,
    inputs: readonly NoInfer<In>[],
    options?: EnqueueOptions,
  ): Promise<EnqueueResult[]> {
    return handle.enqueueMany(inputs, options);
  }

  /** Queues one run on behalf of `actor` (its org is the tenant, its id `enqueuedBy`); the same as `handle.as()`. */
  as<In, Out, R>(
    handle: JobHandle<In, Out, R>,
    actor: EnqueueActor,
    input: NoInfer<In>,
    options?: EnqueueOptions,
  ): Promise<EnqueueResult> {
    return handle.as(actor, input, options);
  }

  /** The manifest row of one job. */
  describe<In, Out, R>(handle: JobHandle<In, Out, R>): JobDescriptor {
    return handle.describe();
  }

  /** Every job this application registered, by name. */
  manifest(): readonly JobDescriptor[] {
    return this.registry.manifest();
  }

  /** Every task this application registered (`forFeature({ tasks })` and `@Task`), by name. */
  tasks(): readonly TaskDescriptor[] {
    return this.taskRegistry.manifest();
  }

  /** The registered task under `name` (a `@Task` method's handle is found here). */
  task(name: string): TaskHandle | undefined {
    return this.taskRegistry.get(name);
  }

  /**
   * Fires every entry of `task` now, through each job's own `enqueue` (its own idempotency key, so a manual fire is
   * a distinct run from the scheduled one): the same as `task.enqueue(options)`. One result per entry.
   */
  fireTask(task: TaskHandle, options?: TaskEnqueueOptions): Promise<readonly EnqueueResult[]> {
    return task.enqueue(options);
  }

  /**
   * Publishes an event on the module's bus: every `step.waitForEvent` of the event's tenant it matches resumes. The
   * tenant rules are `publishEvent`'s: the run's own by default inside a run (another needs `crossTenant`), `null` or
   * the one named outside. The event passes the value contract first (`X_VALUE_INVALID` naming the field).
   */
  async publishEvent(
    name: string,
    payload: JsonValue,
    options: PublishEventOptions = {},
  ): Promise<PublishedEvent> {
    return this.runtime.config.events.publish(
      name,
      payload,
      eventPublishOptions(name, payload, options),
    );
  }

  /** The driver this application runs on (rows by id: `driver.get(id)`). */
  get driver(): JobDriver {
    return this.runtime.config.driver;
  }

  /**
   * Counts per queue and state, with each queue's live rows per job name (`names`): where rows of a job no running
   * worker serves show up — they wait, and their `oldestReadyMs` grows.
   */
  stats(): Promise<readonly QueueStats[]> {
    return this.runtime.config.driver.stats();
  }

  // ── the operator surface: the same JSON projections the x CLI and the admin page read ──

  /** One page of jobs, newest first, with the cursors around it (`x jobs list`). */
  listJobs(filter?: JobListFilter): Promise<JobPageView> {
    return listJobs(this.driver, filter, { declarations: this.inspectManifest() });
  }

  /**
   * One job: row, input redacted by this app's `redact:` declarations, failure, last progress, step trace with
   * durations and the backfill slot (`x jobs show`). Unknown: `X_JOB_NOT_FOUND`.
   */
  inspectJob(id: string, options: Omit<InspectJobOptions, 'declarations'> = {}): Promise<JobView> {
    const ledger = this.runtime.config.backend.backfills;
    return inspectJob(this.driver, id, {
      backfill: (row) => inspectBackfillOfJob(ledger, row.id),
      ...options,
      declarations: this.inspectManifest(),
    });
  }

  /** One page of the dead-letter queue (`x jobs dead`). */
  inspectDeadLetters(filter?: Omit<JobListFilter, 'state'>): Promise<JobPageView> {
    return inspectDeadLetters(this.driver, filter, { declarations: this.inspectManifest() });
  }

  /** Re-queues a finished job, from `fromStep` when given (`x jobs retry [--from-step]`). */
  retryFromStep(id: string, fromStep?: string): Promise<JobSummaryView> {
    return retryFromStep(this.driver, id, fromStep, { declarations: this.inspectManifest() });
  }

  /** Stops a live job; anything else is `X_JOB_NOT_CANCELLABLE` (`x jobs cancel`). */
  cancelJob(id: string, reason?: string): Promise<JobSummaryView> {
    return cancelJob(this.driver, id, reason, { declarations: this.inspectManifest() });
  }

  /** Deletes a job that is not running, with its steps (`x jobs delete`). */
  removeJob(id: string): Promise<{ readonly removed: string }> {
    return removeJob(this.driver, id);
  }

  /** A job waiting on its run time is due now (`x jobs promote`). */
  promoteJob(id: string): Promise<JobSummaryView> {
    return promoteJob(this.driver, id, { declarations: this.inspectManifest() });
  }

  /** One bounded bulk call answering `{ affected, remaining }`: call until `remaining` is 0. */
  bulkJobs(action: BulkAction, filter: BulkFilter): Promise<BulkView> {
    return bulkJobs(this.driver, action, filter);
  }

  /** What {@link JobsService.bulkJobs} would cover, changing nothing. */
  previewBulk(action: BulkAction, filter: BulkFilter): Promise<BulkPreviewView> {
    return previewBulk(this.driver, action, filter, { declarations: this.inspectManifest() });
  }

  /** Every queue: counts per state, live rows per name, paused or not (`x queues list`). */
  inspectQueues(): Promise<readonly QueueView[]> {
    return inspectQueues(this.driver);
  }

  /**
   * Pauses a queue: no worker claims from it; enqueues still land (`x queues pause`). A name no row holds, not paused
   * and no job of this app is enqueued on, is `X_QUEUE_NOT_FOUND` unless `force`.
   */
  pauseQueue(queue: string, options: { readonly force?: boolean } = {}): Promise<QueuePauseView> {
    return pauseQueue(this.driver, queue, { declarations: this.#jobQueues(), ...options });
  }

  /** Resumes a paused queue (`x queues resume`). A name nothing knows is `X_QUEUE_NOT_FOUND` unless `force`. */
  resumeQueue(queue: string, options: { readonly force?: boolean } = {}): Promise<QueuePauseView> {
    return resumeQueue(this.driver, queue, { declarations: this.#jobQueues(), ...options });
  }

  /** The queues this app's registered jobs are enqueued on by default. */
  #jobQueues(): { readonly jobs: readonly { readonly queue: string }[] } {
    return { jobs: this.registry.all().map(({ handle }) => ({ queue: handle.queue })) };
  }

  /** Every live worker (`x jobs workers`). */
  inspectWorkers(): Promise<readonly WorkerInfo[]> {
    return inspectWorkers(this.driver);
  }

  /** Queues and per-job counter totals since `sinceMs` (default: the last 24 hours) (`x jobs stats`). */
  inspectStats(sinceMs?: number): Promise<StatsView> {
    return inspectStats(this.driver, {
      clock: this.runtime.config.clock,
      ...(sinceMs === undefined ? {} : { sinceMs }),
    });
  }

  /** This app's tasks and any the backend remembers: pause flag, last fire, next run (`x tasks list`). */
  inspectTasks(): Promise<readonly TaskView[]> {
    return inspectTasks(this.driver, {
      declarations: this.inspectManifest(),
      clock: this.runtime.config.clock,
    });
  }

  /**
   * The next `count` occurrences (at most `MAX_NEXT_TASK_RUNS`, 100) of one of this app's tasks, by the scheduler's
   * own resolver (`x tasks next`).
   */
  nextTaskRuns(task: string, count = 1): readonly number[] {
    return nextTaskRuns(this.inspectManifest(), task, { count, clock: this.runtime.config.clock });
  }

  /**
   * Pauses a task (`x tasks pause`). A name neither this app declares nor the backend remembers (a fire or a pause) is
   * `X_TASK_NOT_FOUND` unless `force` (a task of a release not yet deployed).
   */
  pauseTask(task: string, options: { readonly force?: boolean } = {}): Promise<TaskPauseView> {
    return pauseTask(this.driver, task, { declarations: this.#taskNames(), ...options });
  }

  /**
   * Resumes a paused task; its `catchUp` decides what it missed (`x tasks resume`). A name nothing knows is
   * `X_TASK_NOT_FOUND` unless `force`, as {@link JobsService.pauseTask}.
   */
  resumeTask(task: string, options: { readonly force?: boolean } = {}): Promise<TaskPauseView> {
    return resumeTask(this.driver, task, { declarations: this.#taskNames(), ...options });
  }

  /** The names of the tasks this app declares, read without calling their `enqueue` (as the manifest does). */
  #taskNames(): { readonly tasks: readonly { readonly name: string }[] } {
    return { tasks: this.taskRegistry.all().map(({ name }) => ({ name })) };
  }

  /** Every job and task this app declares, with queue, retry, concurrency and schedule (`x manifest`). */
  inspectManifest(): OperatorDeclarations {
    return inspectManifest({ jobs: this.registry, tasks: this.taskRegistry });
  }
}
