import {
  checkCounterQuery,
  COUNTER_TIERS,
  counterBucketStart,
  counterSince,
  sumCounters,
  type CounterBucket,
} from '../counters';
import type { JobIntrospection } from '../introspection';
import type { JobState } from '../job-row';
import { boundInFlight, type WorkerInfo, type WorkerRegistry } from '../workers';
import { storableDuration } from '../../values/settle';
import type { MemoryStore } from './memory-store';

type Bucket = { -readonly [K in keyof CounterBucket]: CounterBucket[K] };

/** The counters and worker rows of one memory store, beside it rather than in it. */
interface Side {
  /** `name \0 bucketMs \0 bucketStart` → bucket. */
  readonly buckets: Map<string, Bucket>;
  readonly workers: Map<string, WorkerInfo>;
}

const sides = new WeakMap<MemoryStore, Side>();

function sideOf(store: MemoryStore): Side {
  let side = sides.get(store);
  if (!side) {
    side = { buckets: new Map(), workers: new Map() };
    sides.set(store, side);
  }
  return side;
}

const keyOf = (job: string, bucketMs: number, start: number): string =>
  `${job}\u0000${bucketMs}\u0000${start}`;

function add(
  side: Side,
  into: Omit<CounterBucket, 'job' | 'bucketMs' | 'bucketStart'>,
  at: Bucket,
): void {
  at.done += into.done;
  at.retried += into.retried;
  at.failed += into.failed;
  at.dead += into.dead;
  at.cancelled += into.cancelled;
  at.durationMs += into.durationMs;
  side.buckets.set(keyOf(at.job, at.bucketMs, at.bucketStart), at);
}

function bucketAt(side: Side, job: string, bucketMs: number, start: number): Bucket {
  return (
    side.buckets.get(keyOf(job, bucketMs, start)) ?? {
      job,
      bucketMs,
      bucketStart: start,
      done: 0,
      retried: 0,
      failed: 0,
      dead: 0,
      cancelled: 0,
      durationMs: 0,
    }
  );
}

/**
 * Counts one settle into the current first-tier bucket, as the pg settling statements do: `done`, a counted retry
 * (`ready`/`delayed` and not `uncounted`), `failed` or `dead`; a suspension or an uncounted hand-back adds nothing.
 */
export function countSettle(
  store: MemoryStore,
  job: string,
  state: JobState,
  options: { readonly uncounted?: boolean; readonly durationMs?: number },
): void {
  const retried = (state === 'ready' || state === 'delayed') && options.uncounted !== true;
  if (state !== 'done' && state !== 'failed' && state !== 'dead' && !retried) return;
  const side = sideOf(store);
  const bucketMs = COUNTER_TIERS[0]!.bucketMs;
  const at = bucketAt(side, job, bucketMs, counterBucketStart(store.now(), bucketMs));
  add(
    side,
    {
      done: state === 'done' ? 1 : 0,
      retried: retried ? 1 : 0,
      failed: state === 'failed' ? 1 : 0,
      dead: state === 'dead' ? 1 : 0,
      cancelled: 0,
      durationMs: storableDuration(options.durationMs),
    },
    at,
  );
}

/** Counts one cancel into the current first-tier bucket, as `SQL_JOB_CANCEL` does (no duration: nothing settled). */
export function countCancel(store: MemoryStore, job: string): void {
  const side = sideOf(store);
  const bucketMs = COUNTER_TIERS[0]!.bucketMs;
  const at = bucketAt(side, job, bucketMs, counterBucketStart(store.now(), bucketMs));
  add(side, { done: 0, retried: 0, failed: 0, dead: 0, cancelled: 1, durationMs: 0 }, at);
}

/** The tier a bucket of tier `from` folds into when it is past its tier at `now`, or undefined. */
function foldTarget(b: Bucket, now: number): { bucketMs: number; start: number } | undefined {
  const tier = COUNTER_TIERS.findIndex((t) => t.bucketMs === b.bucketMs);
  if (tier < 0 || tier === COUNTER_TIERS.length - 1) return undefined;
  if (b.bucketStart >= now - COUNTER_TIERS[tier]!.keepMs) return undefined;
  // straight to the tier whose window holds the target, so a fold never lands in a bucket due to fold itself
  for (let next = tier + 1; next < COUNTER_TIERS.length; next++) {
    const t = COUNTER_TIERS[next]!;
    const start = counterBucketStart(b.bucketStart, t.bucketMs);
    if (next === COUNTER_TIERS.length - 1 || start >= now - t.keepMs)
      return { bucketMs: t.bucketMs, start };
  }
  return undefined;
}

/** The memory driver's counter and worker reads, and `rollupCounters()`. */
export function memoryCounterIntrospection(
  store: MemoryStore,
): Pick<JobIntrospection, 'workers' | 'counters' | 'counterTotals' | 'rollupCounters'> {
  const side = sideOf(store);
  const since = (sinceMs: number): Bucket[] =>
    [...side.buckets.values()].filter((b) => b.bucketStart >= sinceMs);
  return {
    workers() {
      const now = store.now();
      const live = [...side.workers.values()].filter((w) => w.expiresAt > now);
      return Promise.resolve(live.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
    },
    counters(query) {
      try {
        const { job, sinceMs } = checkCounterQuery(query);
        const rows = since(sinceMs).filter((b) => b.job === job);
        rows.sort((a, b) => a.bucketStart - b.bucketStart || a.bucketMs - b.bucketMs);
        return Promise.resolve(rows.map((b) => ({ ...b })));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    },
    counterTotals(sinceMs) {
      try {
        return Promise.resolve(sumCounters(since(counterSince(sinceMs, 'counterTotals()'))));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    },
    rollupCounters() {
      const now = store.now();
      let folded = 0;
      for (const [key, b] of [...side.buckets]) {
        const target = foldTarget(b, now);
        if (!target) continue;
        side.buckets.delete(key);
        add(side, b, bucketAt(side, b.job, target.bucketMs, target.start));
        folded++;
      }
      return Promise.resolve(folded);
    },
  };
}

/** The memory driver's worker rows. */
export function memoryWorkerRegistry(store: MemoryStore): WorkerRegistry {
  const side = sideOf(store);
  return {
    claimCarriesBeat: true,
    beat(beat, visibilityTimeoutMs) {
      const now = store.now();
      side.workers.set(beat.id, {
        ...beat,
        slots: { ...beat.slots },
        queues: Object.keys(beat.slots).sort(),
        inFlight: [...boundInFlight(beat.inFlight)],
        heartbeatAt: now,
        expiresAt: now + visibilityTimeoutMs,
      });
      return Promise.resolve();
    },
    leave(workerId) {
      side.workers.delete(workerId);
      return Promise.resolve();
    },
  };
}

/** Drops last-tier buckets that started before `beforeMs`; answers how many (the retention sweep's counter target). */
export function purgeMemoryCounters(store: MemoryStore, beforeMs: number): number {
  const side = sideOf(store);
  const last = COUNTER_TIERS[COUNTER_TIERS.length - 1]!.bucketMs;
  let removed = 0;
  for (const [key, b] of [...side.buckets]) {
    if (b.bucketMs === last && b.bucketStart < beforeMs) {
      side.buckets.delete(key);
      removed++;
    }
  }
  return removed;
}
