import type { TaskHandle } from '../declare/task';
import { isTaskHandle } from '../declare/task';
import type { JobDriver } from '../driver/job-driver';
import { SchedulerOptionsInvalidError } from '../errors/scheduler-errors';
import { MAX_TIMER_MS, type Clock } from '../util/clock';
import type { JobsLogger } from '../util/logger';
import type { LeaseLeader } from './lease-leader';
import type { SchedulerState } from './scheduler-state';

/** How often a leading scheduler looks at its (in-memory) due times (default 1 s). An idle look costs no I/O. */
export const DEFAULT_TICK_INTERVAL_MS = 1_000;
/** How often the lease is renewed, and a standby asks for it: a third of its 30 s TTL (default 10 s). */
export const DEFAULT_RENEW_EVERY_MS = 10_000;
/** How long a task found paused waits before it is looked at again: the resume's latency (5 s). */
export const PAUSE_RECHECK_MS = 5_000;

/**
 * When a task found paused at `nowMs` is looked at again: the next multiple of {@link PAUSE_RECHECK_MS}. A shared grid,
 * so every held task falls due in the same round and costs one read of the pause set however many are paused — a
 * re-check `PAUSE_RECHECK_MS` after each one's own round kept each on its own phase, one read per paused task.
 */
export function pauseRecheckAfter(nowMs: number): number {
  return (Math.floor(nowMs / PAUSE_RECHECK_MS) + 1) * PAUSE_RECHECK_MS;
}

/** Options of `jobScheduler()`. */
export interface JobSchedulerOptions {
  /** The driver the default memory state enqueues through. */
  readonly driver: JobDriver;
  /** The tasks this scheduler dispatches. */
  readonly tasks: readonly TaskHandle[];
  /** The election (default: always the leader — pass a lease in any deployment that runs two pods). */
  readonly leader?: LeaseLeader;
  /** Watermarks, fires and pauses (default: in memory — pass a durable one, or a redeploy forgets what it missed). */
  readonly state?: SchedulerState;
  /** The one clock occurrences are decided by (default `systemClock`). */
  readonly clock?: Clock;
  /** Where `jobs.scheduler.*` events go: start, stop, leadership, failed rounds, task catch-up (default silent). */
  readonly logger?: JobsLogger;
  /** How often a leader looks at its due times (default 1 s). */
  readonly tickIntervalMs?: number;
  /** How often the lease is renewed or asked for (default 10 s: a third of the lease's TTL). */
  readonly renewEveryMs?: number;
  /** Told of each queue a fire put a new row on, so a worker in this process starts it at once. */
  readonly onEnqueued?: (queue: string) => void;
}

/** A positive whole number of ms a timer can hold (at most 2^31−1), or the default. */
export function intervalOption(name: string, value: number | undefined, fallback: number): number {
  const ms = value ?? fallback;
  if (!Number.isSafeInteger(ms) || ms < 1 || ms > MAX_TIMER_MS) {
    throw new SchedulerOptionsInvalidError(
      name,
      `must be a whole number of ms from 1 to ${MAX_TIMER_MS}`,
    );
  }
  return ms;
}

/** The tasks, each once; anything that is not a `task()` handle is refused. */
export function taskList(tasks: readonly TaskHandle[]): TaskHandle[] {
  if (!Array.isArray(tasks))
    throw new SchedulerOptionsInvalidError('tasks', 'must be an array of task() handles');
  const list: TaskHandle[] = [];
  tasks.forEach((task: unknown, i) => {
    if (!isTaskHandle(task))
      throw new SchedulerOptionsInvalidError(`tasks[${i}]`, 'is not a task() handle');
    if (!list.includes(task)) list.push(task);
  });
  return list;
}
