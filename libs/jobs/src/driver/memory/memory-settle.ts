import { storableProgress } from '../../values/progress';
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
export function nackRow(store: MemoryStore, jobId: string, options: NackOptions): boolean {
  const row = store.get(jobId);
  if (!holdsClaim(row, options)) return false;
  const now = store.now();
  const state = nackState(options, now);
  const uncounted = nackUncounted(options);
  store.put({
    ...row,
    ...UNCLAIMED,
    state,
    lastError: options.error === null ? null : boundedText(options.error),
    runAt: nackRunAt(options) ?? now,
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
