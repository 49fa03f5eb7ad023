import { MAX_TASK_FIRES, type TaskFireRecord } from '../../scheduler/scheduler-state';
import type { JobIntrospection } from '../introspection';
import type { MemoryStore } from './memory-store';

type TaskMembers = Pick<
  JobIntrospection,
  'pauseTask' | 'resumeTask' | 'pausedTasks' | 'taskFires' | 'recordTaskFire'
>;

const byTask = (a: TaskFireRecord, b: TaskFireRecord): number =>
  a.task < b.task ? -1 : a.task > b.task ? 1 : 0;

/**
 * Task pauses and last fires of one memory driver. A `memorySchedulerState` over this driver keeps them here (it
 * pauses and records through `driver.introspect`), so the operator surface and the scheduler read one set.
 */
export function memoryTaskIntrospection(store: MemoryStore): TaskMembers {
  const paused = new Set<string>();
  const fires = new Map<string, TaskFireRecord>();
  return {
    pauseTask(task) {
      paused.add(task);
      return Promise.resolve();
    },
    resumeTask(task) {
      paused.delete(task);
      return Promise.resolve();
    },
    pausedTasks: () => Promise.resolve([...paused].sort()),
    taskFires: () => Promise.resolve([...fires.values()].sort(byTask).slice(0, MAX_TASK_FIRES)),
    recordTaskFire({ task, occurrenceMs }) {
      fires.set(task, { task, occurrenceMs, firedAt: store.now() });
      return Promise.resolve();
    },
  };
}
