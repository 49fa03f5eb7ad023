import { Injectable } from '@nestjs/common';
import { CounterRollup } from '../scheduler/counter-rollup';
import { jobScheduler, type JobScheduler } from '../scheduler/job-scheduler';
import { JobsRuntime } from './jobs.runtime';
import { countingFires } from './metrics/counting-driver';
import type { JobsRoleHost } from './lifecycle/role-host';
import { schedulerWiring } from './scheduler.config';
import { TaskRegistry } from './task.registry';

/**
 * Runs the task scheduler when this process holds the `scheduler` role. `JobsLifecycle` starts it at bootstrap (after
 * the explorer registered every task and bound every `@Task`) with the leader and state of `forRoot({ scheduler })`,
 * else what the driver offers, else memory. It is the first role stopped at shutdown: stop dispatching and finish the
 * round in flight, up to `shutdown.deadlineMs` — a round still enqueueing at the deadline keeps the lease, which
 * expires on its own.
 */
@Injectable()
export class SchedulerHost implements JobsRoleHost {
  /** The role this host runs. */
  readonly role = 'scheduler';
  #scheduler: JobScheduler | undefined;
  #stopping: Promise<void> | undefined;
  /** The leader's once-a-minute `rollupCounters()`, while the scheduler runs. */
  #rollup: CounterRollup | undefined;

  constructor(
    private readonly runtime: JobsRuntime,
    private readonly tasks: TaskRegistry,
  ) {}

  /** The running scheduler, when this process holds the `scheduler` role, has tasks and has bootstrapped. */
  get scheduler(): JobScheduler | undefined {
    return this.#scheduler;
  }

  /** Starts the scheduler (and the leader's counter rollup) over the module's tasks; none registered, it warns and stays idle. */
  start(): Promise<void> {
    const { backend, driver, clock, logger, scheduler: options } = this.runtime.config;
    const tasks = this.tasks.all();
    if (tasks.length === 0) {
      logger.log('warn', 'jobs.scheduler.nothing-to-schedule', {
        fix: 'Register tasks with JobsModule.forFeature({ tasks: [...] }) or @Task(), or drop the scheduler role.',
      });
      return Promise.resolve();
    }
    const wiring = schedulerWiring(driver, clock, options, backend);
    // On the memory driver, memory defaults are all there is; on any other they fail silently: say so.
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
      // a fire lands its rows through the state, in its own write: counted there in jobs_enqueued_total
      state: countingFires(wiring.state, (queue, rows) =>
        this.runtime.metrics?.enqueued?.(queue, rows),
      ),
      tickIntervalMs: options.tickIntervalMs,
      renewEveryMs: options.renewEveryMs,
      onEnqueued: (queue) => this.runtime.notifyEnqueued(queue),
    });
    scheduler.start();
    this.#scheduler = scheduler;
    if (driver.introspect) {
      this.#rollup = new CounterRollup({
        introspect: driver.introspect,
        clock,
        logger,
        isLeader: () => scheduler.isLeader(),
      });
      this.#rollup.start();
    }
    return Promise.resolve();
  }

  /** Stops dispatching; the round in flight may run on until `deadlineAt`. */
  beginStop(_cause: string, deadlineAt: number): void {
    const scheduler = this.#scheduler;
    if (scheduler === undefined || this.#stopping !== undefined) return;
    // stop() stops dispatching before its first await; what it returns is the wait for the round in flight
    const deadlineMs = Math.max(0, deadlineAt - this.runtime.config.clock.now());
    void this.#rollup?.stop();
    this.#stopping = scheduler.stop({ deadlineMs });
  }

  /** Stops the scheduler and waits for the round in flight, up to `deadlineAt`. */
  async stop(deadlineAt: number): Promise<void> {
    if (this.#scheduler === undefined) return;
    this.beginStop('stop', deadlineAt);
    this.#scheduler = undefined;
    await this.#stopping;
    await this.#rollup?.stop();
    this.#rollup = undefined;
  }
}
