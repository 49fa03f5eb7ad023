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
 */
export function memorySchedulerState(options: MemorySchedulerStateOptions): SchedulerState {
  const clock = options.clock ?? systemClock;
  const watermarks = new Map<string, number>();
  const fires = new Map<string, TaskFireRecord>();
  const paused = new Set<string>();
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
        watermarks.set(request.task, request.watermarkMs);
        fires.set(request.task, {
          task: request.task,
          occurrenceMs: request.occurrenceMs,
          firedAt: clock.now(),
        });
        return { fired: true, results };
      }),
    skipTo: (task, watermarkMs, previousWatermarkMs) =>
      locked(task, () => {
        if (watermarks.get(task) !== previousWatermarkMs) return Promise.resolve(false);
        watermarks.set(task, watermarkMs);
        return Promise.resolve(true);
      }),
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
