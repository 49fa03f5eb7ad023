import { systemClock, type TimerHandle } from '../util/clock';
import { silentLogger } from '../util/logger';
import type { LeaseLeader } from './lease-leader';
import { memoryLeaseLeader } from './memory-lease-leader';
import { memorySchedulerState } from './memory-scheduler-state';
import {
  DEFAULT_RENEW_EVERY_MS,
  DEFAULT_TICK_INTERVAL_MS,
  intervalOption,
  pauseRecheckAfter,
  taskList,
  type JobSchedulerOptions,
} from './scheduler-options';
import {
  dispatchTask,
  loadSlots,
  newSlot,
  type DispatchContext,
  type TaskSlot,
} from './task-dispatch';
import { logError, withErrorStack } from '../util/log-format';

/** Where a scheduler is in its life. */
export type JobSchedulerStatus = 'idle' | 'running' | 'stopping' | 'stopped';

/** Options of `scheduler.stop()`. */
export interface SchedulerStopOptions {
  /**
   * How long to wait for the round in flight (default: as long as it takes). A round still enqueueing at the deadline
   * KEEPS the lease — promoting a standby onto an occurrence this node is mid-dispatch for is the double fire the
   * election exists to prevent — and the lease expires on its own.
   */
  readonly deadlineMs?: number;
}

/** The scheduler role: one dispatch round at a time, while it holds the lease. */
export interface JobScheduler {
  /** This process's lease holder id. */
  readonly holderId: string;
  /** Where it is in its life: `idle` until `start()`, then `running`, `stopping`, `stopped`. */
  readonly status: JobSchedulerStatus;
  /** Whether this scheduler believes it leads (it found out otherwise at its last renewal, at the latest). */
  isLeader(): boolean;
  /** Starts the loop: the first round asks for the lease at once. Idempotent. */
  start(): void;
  /**
   * Drains: stops dispatching, finishes the round in flight, releases the lease. Idempotent: a call while a stop is
   * under way answers when that one is done (or at its own deadline).
   */
  stop(options?: SchedulerStopOptions): Promise<void>;
}

/**
 * Creates the scheduler role. A leading scheduler holds every task's watermark in memory and sleeps until the earliest
 * due time (at most `tickIntervalMs`), so an idle round reads no store and resolves no cron: the lease renewal every
 * `renewEveryMs` is its only statement — 6 a minute at the defaults, for any number of tasks. A standby wakes only to
 * ask for the lease, every `renewEveryMs`.
 */
export function jobScheduler(options: JobSchedulerOptions): JobScheduler {
  return new SchedulerLoop(options);
}

class SchedulerLoop implements JobScheduler {
  readonly holderId: string;
  status: JobSchedulerStatus = 'idle';
  readonly #options: JobSchedulerOptions;
  readonly #ctx: DispatchContext;
  readonly #slots: TaskSlot[];
  readonly #renewEveryMs: number;
  readonly #leader: LeaseLeader;
  #leading = false;
  #nextRenewAt = -Infinity;
  #timer: TimerHandle | undefined;
  #round: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;

  constructor(options: JobSchedulerOptions) {
    this.#options = options;
    this.#slots = taskList(options.tasks).map(newSlot);
    this.#renewEveryMs = intervalOption(
      'renewEveryMs',
      options.renewEveryMs,
      DEFAULT_RENEW_EVERY_MS,
    );
    const clock = options.clock ?? systemClock;
    this.#leader = options.leader ?? memoryLeaseLeader();
    this.holderId = this.#leader.holderId;
    this.#ctx = {
      state: options.state ?? memorySchedulerState({ driver: options.driver, clock }),
      clock,
      logger: options.logger ?? silentLogger,
      tickIntervalMs: intervalOption(
        'tickIntervalMs',
        options.tickIntervalMs,
        DEFAULT_TICK_INTERVAL_MS,
      ),
      ...(options.onEnqueued === undefined ? {} : { onEnqueued: options.onEnqueued }),
      mayContinue: () => this.#mayContinue(),
    };
  }

  isLeader(): boolean {
    return this.#leading;
  }

  start(): void {
    if (this.status !== 'idle') return;
    this.status = 'running';
    const { leader, state } = this.#options;
    if (leader === undefined || state === undefined) {
      this.#ctx.logger.log('warn', 'jobs.scheduler.memory-defaults', {
        leader: leader === undefined ? 'always the leader' : 'given',
        state: state === undefined ? 'in memory' : 'given',
        fix: 'Pass a durable state and a lease leader in any deployment: a redeploy forgets what it missed, and a rolling update runs two leaders.',
      });
    }
    this.#ctx.logger.log('info', 'jobs.scheduler.started', {
      holderId: this.holderId,
      tasks: this.#slots.map((s) => s.task.name),
    });
    this.#arm(0);
  }

  async stop(options: SchedulerStopOptions = {}): Promise<void> {
    if (this.status === 'stopped') return;
    if (this.#stopping !== undefined) {
      // a stop under way: wait for it (up to this call's own deadline), so no caller closes the store mid-round
      await this.#settlesWithin(this.#stopping, options.deadlineMs);
      return;
    }
    this.#stopping = this.#drain(options);
    await this.#stopping;
  }

  async #drain(options: SchedulerStopOptions): Promise<void> {
    this.status = 'stopping';
    this.#timer?.cancel();
    this.#timer = undefined;
    const round = this.#round;
    if (round !== undefined && !(await this.#settlesWithin(round, options.deadlineMs))) {
      this.#ctx.logger.log('warn', 'jobs.scheduler.drain-abandoned', {
        holderId: this.holderId,
        deadlineMs: options.deadlineMs,
        reason: 'a round was still enqueueing; the lease is kept and expires on its own',
      });
      this.status = 'stopped';
      return;
    }
    if (this.#leading) {
      this.#leading = false;
      try {
        await this.#leader.release();
      } catch (error) {
        this.#ctx.logger.log('warn', 'jobs.scheduler.lease.release-failed', {
          error: logError(error),
        });
      }
    }
    this.status = 'stopped';
    this.#ctx.logger.log('info', 'jobs.scheduler.stopped', { holderId: this.holderId });
  }

  #arm(delayMs: number): void {
    this.#timer = this.#ctx.clock.setTimeout(() => this.#tick(), Math.max(0, delayMs));
  }

  #tick(): void {
    this.#timer = undefined;
    if (this.status !== 'running') return;
    let failed = false;
    this.#round = this.#runRound()
      .catch((error: unknown) => {
        failed = true;
        this.#ctx.logger.log(
          'warn',
          'jobs.scheduler.round.failed',
          withErrorStack({ error: logError(error) }, error),
        );
      })
      .finally(() => {
        this.#round = undefined;
        if (this.status === 'running') this.#arm(failed ? this.#ctx.tickIntervalMs : this.#delay());
      });
  }

  /** Until the next renewal, the earliest wake of a slot, or one tick — whichever is first. A standby: the renewal. */
  #delay(): number {
    const now = this.#ctx.clock.now();
    let at = this.#nextRenewAt;
    if (this.#leading) {
      at = Math.min(at, now + this.#ctx.tickIntervalMs);
      // an unloaded slot keeps its wake too: a refusal leaves it due (read again at once), a failed write a tick on —
      // reading "unloaded" as "now" retried a failing store in a loop at one instant
      for (const slot of this.#slots) at = Math.min(at, slot.wakeMs);
    }
    return at - now;
  }

  async #runRound(): Promise<void> {
    if (this.#ctx.clock.now() >= this.#nextRenewAt) await this.#renew();
    if (!this.#leading) return;
    await loadSlots(this.#ctx, this.#slots);
    const now = this.#ctx.clock.now();
    const due = this.#slots.filter((s) => s.wakeMs <= now);
    if (due.length === 0) return;
    // checked when due, so a pause holds for the very next occurrence
    const paused = due.some((s) => s.watermarkMs !== undefined)
      ? new Set(await this.#ctx.state.pausedTasks())
      : new Set<string>();
    for (const [i, slot] of due.entries()) {
      if (i > 0 && !(await this.#mayContinue())) return;
      if (slot.watermarkMs !== undefined && paused.has(slot.task.name)) {
        slot.wakeMs = pauseRecheckAfter(now);
        continue;
      }
      await dispatchTask(this.#ctx, slot, now);
    }
  }

  async #mayContinue(): Promise<boolean> {
    if (this.status !== 'running') return false;
    if (this.#ctx.clock.now() >= this.#nextRenewAt) await this.#renew();
    return this.#leading;
  }

  /** Asks for (or renews) the lease; any failure demotes — a node that cannot renew must not act as leader. */
  async #renew(): Promise<void> {
    this.#nextRenewAt = this.#ctx.clock.now() + this.#renewEveryMs;
    let leads = false;
    try {
      leads = await this.#leader.acquire();
    } catch (error) {
      this.#ctx.logger.log(
        'warn',
        'jobs.scheduler.lease.failed',
        withErrorStack({ error: logError(error) }, error),
      );
    }
    if (leads && !this.#leading) {
      // another leader may have moved every watermark since this node last led
      for (const slot of this.#slots) slot.loaded = false;
      this.#ctx.logger.log('info', 'jobs.scheduler.leader.acquired', { holderId: this.holderId });
    } else if (!leads && this.#leading) {
      this.#ctx.logger.log('warn', 'jobs.scheduler.leader.lost', { holderId: this.holderId });
    }
    this.#leading = leads;
  }

  async #settlesWithin(round: Promise<void>, deadlineMs: number | undefined): Promise<boolean> {
    if (deadlineMs === undefined) {
      await round;
      return true;
    }
    let timer: TimerHandle | undefined;
    const deadline = new Promise<boolean>((resolve) => {
      timer = this.#ctx.clock.setTimeout(() => resolve(false), deadlineMs);
    });
    const settled = await Promise.race([round.then(() => true), deadline]);
    timer?.cancel();
    return settled;
  }
}
