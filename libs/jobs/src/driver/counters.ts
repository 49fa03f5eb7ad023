import { InvariantError } from '../errors/runtime-errors';

/** One tier of the per-job history: buckets `bucketMs` wide, kept while they started less than `keepMs` ago. */
export interface CounterTier {
  /** The width of one bucket, ms. */
  readonly bucketMs: number;
  /** How long a bucket is kept after it started, ms: then folded into the next tier (or dropped, in the last). */
  readonly keepMs: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The counter tiers, finest first: 1-minute buckets for 24 h, 5-minute buckets for 7 days, 1-hour buckets for 30
 * days — at most 1,440 + 2,016 + 720 = 4,176 rows per job name. A settle writes the first tier; `rollupCounters()`
 * folds a bucket past its tier into the next one; the retention sweep drops a last-tier bucket past its `keepMs`.
 */
export const COUNTER_TIERS: readonly CounterTier[] = [
  { bucketMs: MINUTE, keepMs: DAY },
  { bucketMs: 5 * MINUTE, keepMs: 7 * DAY },
  { bucketMs: HOUR, keepMs: 30 * DAY },
];

/** How often the scheduler leader folds the counters (`rollupCounters()`): once a minute. */
export const COUNTER_ROLLUP_INTERVAL_MS = MINUTE;

/** The counts of one bucket, or of a sum of buckets. */
export interface CounterCounts {
  /** Runs settled done. */
  readonly done: number;
  /** Counted attempts handed back for another try (a shed, a suspension and a drained attempt are not counted). */
  readonly retried: number;
  /** Runs that ended `failed` (out of the dead-letter queue). */
  readonly failed: number;
  /** Runs that ended `dead`, including rows a claim buried after their final lease lapsed. */
  readonly dead: number;
  /** Live jobs an operator cancelled (`cancel()`), whatever state they were cancelled in. */
  readonly cancelled: number;
  /** The summed run time, in ms, of every counted attempt (done, retried, failed, dead); a buried row adds none. */
  readonly durationMs: number;
}

/** One bucket of one job's history. */
export interface CounterBucket extends CounterCounts {
  /** The job's durable name. */
  readonly job: string;
  /** The bucket's width: one of {@link COUNTER_TIERS}' `bucketMs`. */
  readonly bucketMs: number;
  /** Epoch ms the bucket starts at (a multiple of `bucketMs`). */
  readonly bucketStart: number;
}

/** One job's counts summed over every bucket in a window. */
export interface CounterTotals extends CounterCounts {
  /** The job's durable name. */
  readonly job: string;
}

/** What `counters()` reads: one job's buckets starting at or after `sinceMs` (epoch ms, default 0: all of them). */
export interface CounterQuery {
  /** The job's durable name. */
  readonly job: string;
  /** Epoch ms; only buckets starting at or after it are read (default 0). */
  readonly sinceMs?: number;
}

/** The first-tier bucket a settle at `nowMs` counts into. */
export function counterBucketStart(nowMs: number, bucketMs: number = MINUTE): number {
  return Math.floor(nowMs / bucketMs) * bucketMs;
}

/** `sinceMs` checked: a finite number (default 0). */
export function counterSince(sinceMs: unknown, call: string): number {
  if (sinceMs === undefined) return 0;
  if (typeof sinceMs !== 'number' || !Number.isFinite(sinceMs)) {
    throw new InvariantError(
      `${call}: sinceMs must be a finite number of epoch ms (got ${String(sinceMs)}).`,
      'Pass an epoch-ms instant, e.g. Date.now() - 3_600_000 for the last hour, or omit it for every bucket.',
    );
  }
  return sinceMs;
}

/** A `counters()` query checked: a non-empty job name and a finite `sinceMs`. */
export function checkCounterQuery(query: CounterQuery): { job: string; sinceMs: number } {
  const job: unknown = (query as { job?: unknown } | undefined)?.job;
  if (typeof job !== 'string' || job.length === 0) {
    throw new InvariantError(
      `counters(): job must be a non-empty job name (got ${String(job)}).`,
      "Pass the job's durable name: counters({ job: 'billing.charge' }).",
    );
  }
  return { job, sinceMs: counterSince(query.sinceMs, 'counters()') };
}

/** Sums buckets per job name, in code-point order of the name. */
export function sumCounters(buckets: readonly CounterBucket[]): CounterTotals[] {
  const totals = new Map<string, { -readonly [K in keyof CounterTotals]: CounterTotals[K] }>();
  for (const b of buckets) {
    const t = totals.get(b.job) ?? {
      job: b.job,
      done: 0,
      retried: 0,
      failed: 0,
      dead: 0,
      cancelled: 0,
      durationMs: 0,
    };
    t.done += b.done;
    t.retried += b.retried;
    t.failed += b.failed;
    t.dead += b.dead;
    t.cancelled += b.cancelled;
    t.durationMs += b.durationMs;
    totals.set(b.job, t);
  }
  return [...totals.values()].sort((a, b) => (a.job < b.job ? -1 : a.job > b.job ? 1 : 0));
}
