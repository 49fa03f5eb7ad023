import type { RescueOptions, RescueResult, RescueSlot } from '../job-driver';
import type { JobRow } from '../job-row';
import { countSettle } from './memory-counters';
import { copyRow, UNCLAIMED, type MemoryStore } from './memory-store';

/** The `lastError` of a row a rescue buried because its lease lapsed on its final attempt. */
export const LEASE_LAPSED_FINAL_ATTEMPT = 'LEASE_LAPSED_FINAL_ATTEMPT';

/** The most lapsed rows of one queue a standalone rescue moves in one call, as on every driver. */
const RESCUE_BATCH = 1_000;

/**
 * Per queue, the names its slots serve; `undefined` when a slot of it takes every name (`names` absent). A queue named
 * by two slots serves the names of both.
 */
export function servedNames(slots: readonly RescueSlot[]): Map<string, Set<string> | undefined> {
  const served = new Map<string, Set<string> | undefined>();
  for (const slot of slots) {
    const had = served.has(slot.queue) ? served.get(slot.queue) : new Set<string>();
    served.set(
      slot.queue,
      had === undefined || slot.names === undefined ? undefined : new Set([...had, ...slot.names]),
    );
  }
  return served;
}

/** Whether `row` is a running row whose lease lapsed at `now` (its worker died). */
export function isLapsed(row: JobRow, now: number): boolean {
  return row.state === 'running' && row.leaseExpiresAt !== null && row.leaseExpiresAt <= now;
}

/**
 * Buries the lapsed final attempts of `served`'s queues (paused ones already left out by the caller): a served
 * name's at once, any other's once lapsed `visibilityTimeoutMs` more (see `RescueSlot.names`). Each is settled
 * `dead` (or `failed` when named in `dropExhausted`), counted, and answered.
 */
export function buryExhausted(
  store: MemoryStore,
  served: ReadonlyMap<string, ReadonlySet<string> | undefined>,
  options: Pick<RescueOptions, 'visibilityTimeoutMs' | 'dropExhausted'>,
  now: number,
): JobRow[] {
  const buried: JobRow[] = [];
  for (const [queue, names] of served) {
    for (const row of store.inQueue(queue)) {
      if (!isLapsed(row, now) || row.attempt < row.maxAttempts) continue;
      // a worker serving the name buries it with its declaration; anyone else only once that plainly did not happen
      const serves = names?.has(row.name) ?? true;
      if (!serves && (row.leaseExpiresAt ?? now) > now - options.visibilityTimeoutMs) continue;
      const dead: JobRow = {
        ...row,
        ...UNCLAIMED,
        state: options.dropExhausted?.has(row.name) ? 'failed' : 'dead',
        lastError: LEASE_LAPSED_FINAL_ATTEMPT,
        finishedAt: now,
        updatedAt: now,
      };
      store.put(dead);
      countSettle(store, row.name, dead.state, {});
      buried.push(copyRow(dead));
    }
  }
  return buried;
}

/**
 * A standalone rescue (`JobDriver.rescue`): buries the lapsed final attempts of the slots' unpaused queues and puts
 * every other lapsed lease of a served name back to `ready` (attempt, run time and priority kept), for the next claim.
 */
export function rescueRows(store: MemoryStore, options: RescueOptions): RescueResult {
  const now = store.now();
  const served = servedNames(options.slots.filter((slot) => !store.paused.has(slot.queue)));
  const buried = buryExhausted(store, served, options, now);
  for (const [queue, names] of served) {
    const lapsed = store
      .inQueue(queue)
      .filter((row) => isLapsed(row, now) && (names?.has(row.name) ?? true))
      .slice(0, RESCUE_BATCH);
    for (const row of lapsed) store.put({ ...row, ...UNCLAIMED, state: 'ready', updatedAt: now });
  }
  return { buried };
}
