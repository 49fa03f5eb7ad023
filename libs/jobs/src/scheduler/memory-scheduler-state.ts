import type { JobIntrospection } from '../driver/introspection';
import type { JobDriver } from '../driver/job-driver';
import { systemClock, type Clock } from '../util/clock';
import {
  MAX_TASK_FIRES,
  type SchedulerState,
  type TaskFireRecord,
  type TaskFireResult,
} from './scheduler-state';

/** Options of {@link memorySchedulerState}. */
export interface MemorySchedulerStateOptions {
  /** The driver a fire enqueues through (`enqueueMany`). */
  readonly driver: JobDriver;
  /** Stamps `firedAt` (default `systemClock`). */
  readonly clock?: Clock;
}

/**
 * Scheduler state in memory, for one process and for tests that share it between several schedulers. A fire holds a
 * per-task lock across the compare, the `enqueueMany` and the watermark move, so concurrent fires of one task are
 * serial — the in-process form of the one statement Postgres runs. Nothing survives the process: with this state a
 * redeployed scheduler arms afresh and never sees what the pod it replaced missed.
 *
 * Task pauses and last fires live in the driver's operator surface when it has one (`driver.introspect`: pauses go
 * through `pauseTask`, each fire is recorded through `recordTaskFire`), so `x tasks pause` and `taskFires()` on the
 * driver and this state read and write one set; a driver without an operator surface keeps them here.
 */
export function memorySchedulerState(options: MemorySchedulerStateOptions): SchedulerState {
  const clock = options.clock ?? systemClock;
  const watermarks = new Map<string, number>();
  const tasks = operatorTasks(options.driver) ?? ownTasks(clock);
  const locks = new Map<string, Promise<unknown>>();

  const locked = <T>(task: string, fn: () => Promise<T>): Promise<T> => {
    const run = (locks.get(task) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => undefined);
    locks.set(task, tail);
    void tail.then(() => {
      if (locks.get(task) === tail) locks.delete(task);
    });
    return run;
  };

  return {
    load: (tasks) => {
      const found = new Map<string, number>();
      for (const task of tasks) {
        const at = watermarks.get(task);
        if (at !== undefined) found.set(task, at);
      }
      return Promise.resolve(found);
    },
    fire: (request) =>
      locked(request.task, async (): Promise<TaskFireResult> => {
        if (watermarks.get(request.task) !== request.previousWatermarkMs) {
          return { fired: false, results: [] };
        }
        const results =
          request.requests.length === 0 ? [] : await options.driver.enqueueMany(request.requests);
        // recorded before the watermark moves: a failed record leaves the occurrence due, and its keyed rows dedupe
        await tasks.recordTaskFire({ task: request.task, occurrenceMs: request.occurrenceMs });
        watermarks.set(request.task, request.watermarkMs);
        return { fired: true, results };
      }),
    skipTo: (task, watermarkMs, previousWatermarkMs) =>
      locked(task, () => {
        if (watermarks.get(task) !== previousWatermarkMs) return Promise.resolve(false);
        watermarks.set(task, watermarkMs);
        return Promise.resolve(true);
      }),
    taskFires: () => tasks.taskFires(),
    pauseTask: (task) => tasks.pauseTask(task),
    resumeTask: (task) => tasks.resumeTask(task),
    pausedTasks: () => tasks.pausedTasks(),
  };
}

type TaskMembers = Pick<
  JobIntrospection,
  'pauseTask' | 'resumeTask' | 'pausedTasks' | 'taskFires' | 'recordTaskFire'
>;

/**
 * The driver's own task pauses and fires, when its operator surface carries them: then `x tasks pause` and
 * `taskFires()` on the driver and this state read and write one set.
 */
function operatorTasks(driver: JobDriver): TaskMembers | undefined {
  const introspect = driver.introspect;
  return typeof introspect?.recordTaskFire === 'function' ? introspect : undefined;
}

/** Task pauses and fires in this state's own maps (a driver with no operator surface). */
function ownTasks(clock: Clock): TaskMembers {
  const fires = new Map<string, TaskFireRecord>();
  const paused = new Set<string>();
  return {
    recordTaskFire({ task, occurrenceMs }) {
      fires.set(task, { task, occurrenceMs, firedAt: clock.now() });
      return Promise.resolve();
    },
    taskFires: () =>
      Promise.resolve(
        [...fires.values()]
          .sort((a, b) => (a.task < b.task ? -1 : a.task > b.task ? 1 : 0))
          .slice(0, MAX_TASK_FIRES),
      ),
    pauseTask: (task) => {
      paused.add(task);
      return Promise.resolve();
    },
    resumeTask: (task) => {
      paused.delete(task);
      return Promise.resolve();
    },
    pausedTasks: () => Promise.resolve([...paused].sort()),
  };
}
