import {
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { jobScheduler, type JobScheduler } from '../scheduler/job-scheduler';
import { JobsRuntime } from './jobs.runtime';
import { schedulerWiring } from './scheduler.config';
import { TaskRegistry } from './task.registry';

/**
 * Runs the task scheduler when this process holds the `scheduler` role. It starts at `onApplicationBootstrap` (after
 * the explorer registered every task and bound every `@Task`) with the leader and state of `forRoot({ scheduler })`,
 * else what the driver offers, else memory. It drains in `beforeApplicationShutdown`: stop dispatching and finish the
 * round in flight, up to `shutdown.deadlineMs` — a round still enqueueing at the deadline keeps the lease, which
 * expires on its own. The worker's drain waits for this one, and the driver closes after both.
 */
@Injectable()
export class SchedulerHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  #scheduler: JobScheduler | undefined;
  #stopping: Promise<void> | undefined;

  constructor(
    private readonly runtime: JobsRuntime,
    private readonly tasks: TaskRegistry,
  ) {}

  /** The running scheduler, when this process holds the `scheduler` role, has tasks and has bootstrapped. */
  get scheduler(): JobScheduler | undefined {
    return this.#scheduler;
  }

  onApplicationBootstrap(): void {
    const { roles, driver, clock, logger, scheduler: options } = this.runtime.config;
    if (!roles.has('scheduler')) return;
    const tasks = this.tasks.all();
    if (tasks.length === 0) {
      logger.log('warn', 'jobs.scheduler.nothing-to-schedule', {
        fix: 'Register tasks with JobsModule.forFeature({ tasks: [...] }) or @Task(), or drop the scheduler role.',
      });
      return;
    }
    const wiring = schedulerWiring(driver, clock, options);
    // On the memory driver, memory defaults are all there is; on any other they fail silently, as the spec warns.
    if (
      driver.kind !== 'memory' &&
      (wiring.stateSource === 'memory' || wiring.leaderSource === 'memory')
    ) {
      logger.log('warn', 'jobs.scheduler.memory-defaults', {
        driver: driver.kind,
        leader: wiring.leaderSource === 'memory' ? 'always the leader' : wiring.leaderSource,
        state: wiring.stateSource === 'memory' ? 'in memory' : wiring.stateSource,
        fix: 'Pass forRoot({ scheduler: { leader, state } }): a redeploy forgets what it missed, and a rolling update runs two leaders.',
      });
    }
    const scheduler = jobScheduler({
      driver,
      tasks,
      clock,
      logger,
      leader: wiring.leader,
      state: wiring.state,
      tickIntervalMs: options.tickIntervalMs,
      renewEveryMs: options.renewEveryMs,
      onEnqueued: (queue) => this.runtime.notifyEnqueued(queue),
    });
    scheduler.start();
    this.#scheduler = scheduler;
  }

  /** Stops dispatching and finishes the round in flight. Idempotent: every caller waits for the one stop. */
  beforeApplicationShutdown(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    const scheduler = this.#scheduler;
    if (scheduler === undefined) return;
    this.#scheduler = undefined;
    await scheduler.stop({ deadlineMs: this.runtime.config.shutdownDeadlineMs });
  }
}
