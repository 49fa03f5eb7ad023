import { Injectable } from '@nestjs/common';
import type { EnqueueResult, JobDriver, QueueStats } from '../driver/job-driver';
import type { JobDescriptor } from '../declare/descriptor';
import type { EnqueueActor, EnqueueOptions, JobHandle } from '../declare/handle';
import type { TaskDescriptor, TaskEnqueueOptions, TaskHandle } from '../declare/task';
import type { PublishedEvent } from '../events/event-bus';
import { eventPublishOptions, type PublishEventOptions } from '../events/publish-event';
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
}
