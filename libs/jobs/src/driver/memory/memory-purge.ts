import type { PurgeTarget, ResolvedRetention } from '../retention';
import type { JobState } from '../job-row';
import { purgeMemoryCounters } from './memory-counters';
import type { MemoryStore } from './memory-store';

const HOUR_TIER_KEEP_MS = 30 * 24 * 3_600_000;

/** Deletes every row of `state` finished before `beforeMs`, with its steps; answers how many. */
function purgeState(store: MemoryStore, state: JobState, beforeMs: number): number {
  let removed = 0;
  for (const row of [...store.all()]) {
    if (row.state === state && row.finishedAt !== null && row.finishedAt < beforeMs) {
      if (store.delete(row.id)) removed++;
    }
  }
  return removed;
}

/** The memory driver's retention targets: finished rows per state (steps go with them) and expired counter buckets. */
export function memoryPurgeTargets(
  store: MemoryStore,
  policy: ResolvedRetention,
): readonly PurgeTarget[] {
  const jobs = (state: JobState, keepMs: number): PurgeTarget => ({
    name: `x_jobs:${state}`,
    purgeExpired: (nowMs) => Promise.resolve(purgeState(store, state, nowMs - keepMs)),
  });
  return [
    jobs('done', policy.finishedMs),
    jobs('failed', policy.finishedMs),
    jobs('cancelled', policy.finishedMs),
    jobs('dead', policy.deadMs),
    {
      name: 'x_job_counters',
      purgeExpired: (nowMs) =>
        Promise.resolve(purgeMemoryCounters(store, nowMs - HOUR_TIER_KEEP_MS)),
    },
  ];
}
