import {
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { JobRegistry } from '../registry/job-registry';
import { jobWorker } from '../worker/job-worker';
import type { JobWorker, WorkerStats } from '../worker/worker-options';
import { JobsRuntime } from './jobs.runtime';
import { SchedulerHost } from './scheduler.host';

/**
 * Runs the job worker when this process holds the `worker` role. It starts at `onApplicationBootstrap` (after the
 * explorer bound every `@Job`; a job with no body refuses the start with `X_JOB_UNBOUND`) and drains in
 * `beforeApplicationShutdown`: first the scheduler stops (a fire during the drain would queue rows for a worker that is
 * leaving), then stop claiming and abort held runs with `X_DRAINING`, then wait for them — all within one
 * `shutdown.deadlineMs`. The driver is closed after, by the runtime.
 */
@Injectable()
export class WorkerHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  #worker: JobWorker | undefined;
  #unwake: (() => void) | undefined;
  #wake: { stop(): Promise<void> } | undefined;

  constructor(
    private readonly runtime: JobsRuntime,
    private readonly registry: JobRegistry,
    private readonly scheduler: SchedulerHost,
  ) {}

  /** The running worker, when this process holds the `worker` role and has bootstrapped. */
  get worker(): JobWorker | undefined {
    return this.#worker;
  }

  /** What the worker has done since it started (undefined without one). */
  stats(): WorkerStats | undefined {
    return this.#worker?.stats();
  }

  async onApplicationBootstrap(): Promise<void> {
    const { roles, driver, clock, logger, events, worker: options } = this.runtime.config;
    if (!roles.has('worker')) return;
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
    });
    await worker.start();
    this.#worker = worker;
    this.#unwake = this.runtime.onEnqueued((queue) => worker.signalEnqueued(queue));
    // Another process's enqueue reaches this worker through the backend's wake (Postgres LISTEN); the poll stays.
    this.#wake = this.runtime.config.startWake?.(worker, logger);
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    const worker = this.#worker;
    if (worker === undefined) return;
    this.#worker = undefined;
    const { clock, shutdownDeadlineMs } = this.runtime.config;
    const deadline = clock.now() + shutdownDeadlineMs;
    await this.scheduler.beforeApplicationShutdown();
    this.#unwake?.();
    const wake = this.#wake;
    this.#wake = undefined;
    await wake?.stop().catch(() => undefined);
    worker.beginDrain(signal);
    await worker.stop(deadline);
  }
}
