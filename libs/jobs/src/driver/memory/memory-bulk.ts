import { MAX_BULK_ROWS, type JobBulkFilter, type JobBulkResult } from '../introspection';
import type { JobRow } from '../job-row';
import { liveKeyOf, UNCLAIMED, type MemoryStore } from './memory-store';

/** A finished row moved back to ready as a fresh run: due now, attempt 0, error, progress and finish cleared. */
export function requeuedRow(row: JobRow, now: number): JobRow {
  return {
    ...row,
    ...UNCLAIMED,
    state: 'ready',
    runAt: now,
    attempt: 0,
    lastError: null,
    progress: null,
    finishedAt: null,
    updatedAt: now,
  };
}

const byIdAsc = (a: JobRow, b: JobRow): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The rows of the filter, oldest first (UUIDv7 ids: id order is creation order). */
function rowsOf(store: MemoryStore, filter: JobBulkFilter): JobRow[] {
  const source = filter.queue === undefined ? [...store.all()] : store.inQueue(filter.queue);
  return source
    .filter(
      (row) =>
        row.state === filter.state &&
        (filter.name === undefined || row.name === filter.name) &&
        (filter.tenantId === undefined || row.tenantId === filter.tenantId),
    )
    .sort(byIdAsc);
}

/**
 * Re-queues up to {@link MAX_BULK_ROWS} finished rows of the filter, oldest first. Only rows it can move count: a row
 * whose key a live job holds stays, and of several sharing one key only the oldest moves (the others are then held).
 */
export function requeueManyRows(store: MemoryStore, filter: JobBulkFilter): JobBulkResult {
  const oldestPerKey = new Map<string, JobRow>();
  for (const row of rowsOf(store, filter)) {
    const key = liveKeyOf(row);
    if (!oldestPerKey.has(key) && store.liveHolder(row) === undefined) oldestPerKey.set(key, row);
  }
  const movable = [...oldestPerKey.values()];
  const now = store.now();
  const moving = movable.slice(0, MAX_BULK_ROWS);
  for (const row of moving) store.put(requeuedRow(row, now));
  return { affected: moving.length, remaining: movable.length - moving.length };
}

/** Deletes up to {@link MAX_BULK_ROWS} rows of the filter (never running: the filter's state is checked first). */
export function removeManyRows(store: MemoryStore, filter: JobBulkFilter): JobBulkResult {
  const rows = rowsOf(store, filter);
  const removing = rows.slice(0, MAX_BULK_ROWS);
  for (const row of removing) store.delete(row.id);
  return { affected: removing.length, remaining: rows.length - removing.length };
}

/** Makes up to {@link MAX_BULK_ROWS} rows of the filter still waiting on their run time due now, as `promote` does. */
export function promoteManyRows(store: MemoryStore, filter: JobBulkFilter): JobBulkResult {
  const now = store.now();
  const waiting = rowsOf(store, filter).filter((row) => row.runAt > now);
  const moving = waiting.slice(0, MAX_BULK_ROWS);
  for (const row of moving) store.put({ ...row, state: 'ready', runAt: now, updatedAt: now });
  return { affected: moving.length, remaining: waiting.length - moving.length };
}
