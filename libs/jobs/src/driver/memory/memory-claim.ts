import { randomUUID } from 'node:crypto';
import { ClaimQueuesEmptyError } from '../../errors/runtime-errors';
import type { ClaimAndRescueResult, ClaimOptions, RescueRequest } from '../job-driver';
import type { ClaimedJob, JobRow } from '../job-row';
import { buryExhausted, servedNames } from './memory-rescue';
import { copyRow, type MemoryStore } from './memory-store';

export { LEASE_LAPSED_FINAL_ATTEMPT } from './memory-rescue';

/** Whether a claim at `now` may take `row`: due and waiting, or running under a lease that lapsed (its worker died). */
export function isClaimable(row: JobRow, now: number): boolean {
  switch (row.state) {
    case 'ready':
    case 'delayed':
    case 'suspended':
      return row.runAt <= now;
    case 'running':
      return row.leaseExpiresAt !== null && row.leaseExpiresAt <= now;
    default:
      return false;
  }
}

/** The claim order: priority, then run time, then id (UUIDv7 ids sort by creation). */
export function claimOrder(a: JobRow, b: JobRow): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  if (a.runAt !== b.runAt) return a.runAt - b.runAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * One claim pass, rescuing first when `rescue` is given (`JobDriver.claimRescuing`: one synchronous pass, so the rescue
 * and the claim land together or, refused, not at all). Paused queues are skipped, and so are rows of names a slot
 * does not serve (`ClaimSlot.names`). A rescue buries the lapsed final attempts of every slot's queue first, and apart
 * from the slot limits: a page of rows the claim cannot hand out must never block the rows it can (River PR #1318) —
 * those of a name the claim does not serve only once lapsed a visibility timeout more (see `RescueSlot.names`); the
 * claim then re-takes the other lapsed leases of served names in claim order. Without `rescue` lapsed leases are
 * neither buried nor re-taken: only waiting rows are claimed.
 */
export function claimRows(
  store: MemoryStore,
  options: ClaimOptions,
  rescue?: RescueRequest,
): ClaimAndRescueResult {
  if (options.slots.length === 0) throw new ClaimQueuesEmptyError();
  const now = store.now();
  const slots = options.slots.filter((slot) => !store.paused.has(slot.queue));
  const served = servedNames(slots);
  const serves = (row: JobRow): boolean => served.get(row.queue)?.has(row.name) ?? true;

  const rescuing = rescue !== undefined;
  const buried = rescuing
    ? buryExhausted(
        store,
        served,
        { ...rescue, visibilityTimeoutMs: options.visibilityTimeoutMs },
        now,
      )
    : [];

  const excluded = new Set(options.excludeTenants ?? []);
  const claimed: ClaimedJob[] = [];
  for (const slot of slots) {
    const limit = Math.max(0, Math.floor(slot.limit));
    const ahead = Math.max(0, Math.floor(slot.ahead ?? 0));
    if (limit + ahead <= 0) continue;
    // past the limit, only rows this claim does not put on their final attempt (see ClaimSlot.ahead)
    const due = store
      .inQueue(slot.queue)
      .filter((row) => isClaimable(row, now) && (rescuing || row.state !== 'running'))
      .filter(serves)
      .filter((row) => row.tenantId === null || !excluded.has(row.tenantId))
      .sort(claimOrder)
      .slice(0, limit + ahead)
      .filter((row, i) => i < limit || row.attempt + 1 < row.maxAttempts);
    for (const row of due) {
      const next: ClaimedJob = {
        ...row,
        state: 'running',
        attempt: row.attempt + 1,
        workerId: options.workerId,
        claim: randomUUID(),
        leaseExpiresAt: now + options.visibilityTimeoutMs,
        updatedAt: now,
      };
      store.put(next);
      claimed.push(copyRow(next));
    }
  }
  return { claimed, rescued: { buried } };
}
