import { storableProgress } from '../../values/progress';
import { storableNack } from '../../values/settle';
import { boundedText } from '../../values/text';
import {
  nackRunAt,
  nackState,
  nackUncounted,
  type AckOptions,
  type NackOptions,
} from '../job-driver';
import { isLiveState, type ClaimRef, type JobProgress } from '../job-row';
import { countSettle } from './memory-counters';
import { holdsClaim, UNCLAIMED, type MemoryStore } from './memory-store';

/** Settles a run done; lands only while `options` is the row's current claim. */
export function ackRow(store: MemoryStore, jobId: string, options: AckOptions): boolean {
  const row = store.get(jobId);
  if (!holdsClaim(row, options)) return false;
  const now = store.now();
  store.put({ ...row, ...UNCLAIMED, state: 'done', finishedAt: now, updatedAt: now });
  countSettle(store, row.name, 'done', options);
  return true;
}

/** Hands a run back in the state {@link nackState} names; lands only while `options` is the row's current claim. */
export function nackRow(store: MemoryStore, jobId: string, given: NackOptions): boolean {
  const options = storableNack(given);
  const now = store.now();
  // checked (storableNack) whether or not the claim still holds the row: a whole ms every driver stores
  const runAt = nackRunAt(options) ?? now;
  const row = store.get(jobId);
  if (!holdsClaim(row, options)) return false;
  const decided = nackState(options, now);
  // a waiting state is decided against the stored time, as the pg statement decides it
  const state =
    decided === 'ready' || decided === 'delayed' ? (runAt > now ? 'delayed' : 'ready') : decided;
  const uncounted = nackUncounted(options);
  store.put({
    ...row,
    ...UNCLAIMED,
    state,
    lastError: options.error === null ? null : boundedText(options.error),
    runAt,
    attempt: uncounted ? Math.max(0, row.attempt - 1) : row.attempt,
    finishedAt: isLiveState(state) ? null : now,
    updatedAt: now,
  });
  countSettle(store, row.name, state, { uncounted, durationMs: options.durationMs });
  return true;
}

/** Renews the lease to `visibilityTimeoutMs` from now; lands only while `claim` is the row's current claim. */
export function heartbeatRow(
  store: MemoryStore,
  jobId: string,
  claim: ClaimRef,
  visibilityTimeoutMs: number,
): boolean {
  const row = store.get(jobId);
  if (!holdsClaim(row, claim)) return false;
  const now = store.now();
  store.put({ ...row, leaseExpiresAt: now + visibilityTimeoutMs, updatedAt: now });
  return true;
}

/** Writes a run's progress; lands only while `claim` is the row's current claim. */
export function recordProgressRow(
  store: MemoryStore,
  jobId: string,
  claim: ClaimRef,
  progress: JobProgress,
): boolean {
  const stored = storableProgress(progress);
  const row = store.get(jobId);
  if (!holdsClaim(row, claim)) return false;
  store.put({ ...row, progress: stored, updatedAt: store.now() });
  return true;
}
