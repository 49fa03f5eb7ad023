import {
  JobNotFoundError,
  JobNotPromotableError,
  JobNotRemovableError,
  JobNotRequeueableError,
  requeueHeldError,
} from '../../errors/operator-errors';
import { boundedText } from '../../values/text';
import type { JobIntrospection } from '../introspection';
import { isLiveState, type JobRow } from '../job-row';
import { promoteManyRows, removeManyRows, requeueManyRows, requeuedRow } from './memory-bulk';
import { listRows } from './memory-list';
import { memoryTaskIntrospection } from './memory-tasks';
import { countCancel, memoryCounterIntrospection } from './memory-counters';
import { copyRow, UNCLAIMED, type MemoryStore } from './memory-store';

/** Runs a synchronous pass over the store, answered as a promise (a throw becomes a rejection). */
function run<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/**
 * Drops step `fromStep` and every step completed after it. A name no stored step carries drops nothing: the step a
 * job failed in never completed, so it is never stored, and "requeue from the step that failed" must still work.
 */
function dropStepsFrom(store: MemoryStore, id: string, fromStep: string): void {
  const steps = store.steps.get(id);
  const at = steps?.findIndex((s) => s.name === fromStep) ?? -1;
  if (steps && at >= 0) steps.splice(at);
}

/** The row `id` names, or `X_JOB_NOT_FOUND`. */
function mustGet(store: MemoryStore, id: string): JobRow {
  const row = store.get(id);
  if (!row) throw new JobNotFoundError(id);
  return row;
}

/** Cancels the live row `id`, answering the cancelled row, or undefined when it was not live (or unknown). */
function cancelRow(
  store: MemoryStore,
  id: string,
  reason: string | undefined,
): Promise<JobRow | undefined> {
  // the reason is kept as lastError, so a list of cancelled rows says why each stopped
  const row = store.get(id);
  if (!row || !isLiveState(row.state)) return Promise.resolve(undefined);
  const now = store.now();
  const next: JobRow = {
    ...row,
    ...UNCLAIMED,
    state: 'cancelled',
    lastError: reason === undefined ? row.lastError : boundedText(reason),
    finishedAt: now,
    updatedAt: now,
  };
  store.put(next);
  countCancel(store, next.name);
  return Promise.resolve(copyRow(next));
}

/** Requeues the finished row `id` (dropping its steps from `fromStep` on), or the coded error saying why not. */
async function requeueRow(
  store: MemoryStore,
  id: string,
  options: { readonly fromStep?: string } | undefined,
): Promise<JobRow> {
  const row = mustGet(store, id);
  if (isLiveState(row.state)) throw new JobNotRequeueableError(id, row.state);
  const holder = store.liveHolder(row);
  if (holder) throw requeueHeldError(row.id, holder);
  const next = requeuedRow(row, store.now());
  store.put(next);
  if (options?.fromStep !== undefined) dropStepsFrom(store, id, options.fromStep);
  return copyRow(next);
}

/** Makes the waiting row `id` due now, or `X_JOB_NOT_PROMOTABLE`. */
async function promoteRow(store: MemoryStore, id: string): Promise<JobRow> {
  // a suspended row keeps its state: the claim that takes it early is still a resume
  const row = mustGet(store, id);
  const now = store.now();
  const waiting =
    (row.state === 'delayed' || row.state === 'ready' || row.state === 'suspended') &&
    row.runAt > now;
  if (!waiting) throw new JobNotPromotableError(id);
  const next: JobRow = {
    ...row,
    state: row.state === 'suspended' ? 'suspended' : 'ready',
    runAt: now,
    updatedAt: now,
  };
  store.put(next);
  return copyRow(next);
}

/** The operator surface over the store. */
export function memoryIntrospection(store: MemoryStore): JobIntrospection {
  return {
    list: async (filter) => listRows(store, filter),
    cancel: (id, reason) => cancelRow(store, id, reason),

    async remove(id) {
      const row = mustGet(store, id);
      if (row.state === 'running') throw new JobNotRemovableError(id);
      store.delete(id);
    },

    requeue: (id, options) => requeueRow(store, id, options),
    promote: (id) => promoteRow(store, id),

    pauseQueue(queue) {
      store.paused.add(queue);
      return Promise.resolve();
    },
    resumeQueue(queue) {
      store.paused.delete(queue);
      return Promise.resolve();
    },
    pausedQueues: () => Promise.resolve([...store.paused].sort()),
    requeueMany: (filter) => run(() => requeueManyRows(store, filter)),
    removeMany: (filter) => run(() => removeManyRows(store, filter)),
    promoteMany: (filter) => run(() => promoteManyRows(store, filter)),
    ...memoryTaskIntrospection(store),
    ...memoryCounterIntrospection(store),
  };
}
