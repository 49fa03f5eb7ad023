import { Injectable } from '@nestjs/common';
import { JobRegistry } from '../registry/job-registry';
import { jobWorker } from '../worker/job-worker';
import { settleWithin } from '../worker/settle-within';
import type { JobWorker, WorkerStats } from '../worker/worker-options';
import { JobsRuntime } from './jobs.runtime';
import type { JobsRoleHost } from './lifecycle/role-host';

/**
 * Runs the job worker when this process holds the `worker` role. `JobsLifecycle` starts it at bootstrap (after the
 * explorer bound every `@Job`; a job with no body refuses the start with `X_JOB_UNBOUND`) and stops it at shutdown,
 * after the scheduler and the relay stopped: stop claiming and abort held runs with `X_DRAINING`, then wait for them
 * up to `shutdown.deadlineMs`. The driver is closed after, by the lifecycle.
 */
@Injectable()
export class WorkerHost implements JobsRoleHost {
  /** The role this host runs. */
  readonly role = 'worker';
  #worker: JobWorker | undefined;
  #unwake: (() => void) | undefined;
  #wake: { stop(): Promise<void> } | undefined;
  #wakeStopped: Promise<void> | undefined;

  constructor(
    private readonly runtime: JobsRuntime,
    private readonly registry: JobRegistry,
  ) {}

  /** The running worker, when this process holds the `worker` role and has bootstrapped. */
  get worker(): JobWorker | undefined {
    return this.#worker;
  }

  /** What the worker has done since it started (undefined without one). */
  stats(): WorkerStats | undefined {
    return this.#worker?.stats();
  }

  /** Starts the worker over the module's registry and its backend's wake; nothing to serve, it warns and stays idle. */
  async start(): Promise<void> {
    const { driver, clock, logger, events, worker: options } = this.runtime.config;
    if (options.queues === undefined && this.registry.all().length === 0) {
      // A worker with nothing registered would refuse to start; an app that has not declared jobs yet still boots.
      logger.log('warn', 'jobs.worker.nothing-to-serve', {
        fix: 'Register jobs with JobsModule.forFeature({ jobs: [...] }) or pass worker.queues.',
      });
      return;
    }
    const worker = jobWorker({
      ...options,
      driver,
      registry: this.registry,
      clock,
      logger,
      events,
      ...(this.runtime.metrics === undefined ? {} : { metrics: this.runtime.metrics }),
    });
    await worker.start();
    this.#worker = worker;
    this.#unwake = this.runtime.onEnqueued((queue) => worker.signalEnqueued(queue));
    try {
      // Another process's enqueue reaches this worker through the backend's wake (Postgres LISTEN); the poll stays.
      this.#wake = this.runtime.config.startWake?.(worker, logger);
    } catch (error) {
      // the lifecycle stops only the hosts whose start resolved: this worker must not claim on in a failed boot
      this.beginStop('start-failed');
      await this.stop(clock.now() + this.runtime.config.shutdownDeadlineMs).catch(() => undefined);
      throw error;
    }
  }

  /** Stops the wake and begins the worker's drain: no more claims, held runs aborted with `X_DRAINING`. */
  beginStop(cause: string): void {
    const worker = this.#worker;
    if (worker === undefined) return;
    this.#unwake?.();
    this.#unwake = undefined;
    this.#wakeStopped = this.#wake?.stop().catch(() => undefined);
    this.#wake = undefined;
    worker.beginDrain(cause);
  }

  /** Waits for in-flight runs up to `deadlineAt`, then stops the worker. */
  async stop(deadlineAt: number): Promise<void> {
    const worker = this.#worker;
    if (worker === undefined) return;
    this.#worker = undefined;
    const wakeStopped = this.#wakeStopped;
    this.#wakeStopped = undefined;
    // the wake's goodbye (a LISTEN session's end() to a server gone silent) may never settle: the deadline bounds it
    if (wakeStopped !== undefined)
      await settleWithin(wakeStopped, deadlineAt, this.runtime.config.clock);
    await worker.stop(deadlineAt);
  }
}
