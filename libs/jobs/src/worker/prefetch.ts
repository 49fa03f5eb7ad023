import type { ClaimedJob } from '../driver/job-row';

/** How far ahead a busy worker claims: the rows it expects to start within this long. */
export const PREFETCH_HORIZON_MS = 50;
/** The most claimed-but-not-started rows one queue's buffer holds. */
export const PREFETCH_MAX = 500;
/** The window the completion rate is measured over. */
const RATE_WINDOW_MS = 100;

interface Held {
  readonly row: ClaimedJob;
  /** When the claim handed it out, on the worker's clock. */
  readonly at: number;
}

interface Rate {
  count: number;
  since: number;
  perMs: number;
}

/**
 * The rows a claim took beyond a queue's free slots, held in claim order until a slot frees. A claim statement costs
 * a WAL flush whatever it takes (~1 ms on a 2-core VM), so claiming only for free slots caps a 10-slot worker near
 * 10 rows per flush; claiming ahead is what lets one process drain 20,000 no-op jobs a second.
 *
 * What bounds it: the buffer only grows with the measured completion rate (rows expected to start within
 * {@link PREFETCH_HORIZON_MS}, at most {@link PREFETCH_MAX}), so slow jobs prefetch nothing and an idle worker holds
 * nothing; a held row older than `maxAgeMs` (the heartbeat interval, a third of the lease) is handed back rather than
 * started, so a row starts with most of its lease left and the heartbeat takes over before it could lapse. A worker
 * that dies holding rows strands none past the visibility timeout: their leases lapse and the next claim re-takes
 * them (as a counted attempt, like the runs it died with).
 */
export interface PrefetchBuffer {
  /** Counts a run of `queue` that ended: the rate the target follows. */
  completed(queue: string): void;
  /** How many rows beyond its free slots `queue` should hold now (0 while the rate is unknown or low). */
  target(queue: string, now: number): number;
  /** Rows of `queue` held. */
  held(queue: string): number;
  /** Total rows held. */
  size(): number;
  /** Holds rows a claim handed out beyond the free slots. */
  hold(rows: readonly ClaimedJob[], now: number): void;
  /** The oldest held row of `queue` young enough to start, after moving the stale ones to `stale`. */
  next(queue: string, now: number, stale: ClaimedJob[]): ClaimedJob | undefined;
  /** Takes every held row claimed `maxAgeMs` or longer ago. */
  takeStale(now: number): ClaimedJob[];
  /** Takes every held row (a drain hands them back). */
  takeAll(): ClaimedJob[];
}

/** A {@link PrefetchBuffer} whose rows start only while younger than `maxAgeMs`. */
export function prefetchBuffer(maxAgeMs: number): PrefetchBuffer {
  const buffers = new Map<string, Held[]>();
  const rates = new Map<string, Rate>();
  let total = 0;

  const rateOf = (queue: string, now: number): Rate => {
    let rate = rates.get(queue);
    if (rate === undefined) {
      rate = { count: 0, since: now, perMs: 0 };
      rates.set(queue, rate);
    }
    return rate;
  };

  const take = (queue: string, n: number): Held[] => {
    const buffer = buffers.get(queue);
    if (buffer === undefined) return [];
    const taken = buffer.splice(0, n);
    total -= taken.length;
    return taken;
  };

  return {
    completed(queue) {
      const rate = rates.get(queue);
      if (rate !== undefined) rate.count++;
      else rates.set(queue, { count: 1, since: Number.NaN, perMs: 0 });
    },
    target(queue, now) {
      const rate = rateOf(queue, now);
      if (Number.isNaN(rate.since)) rate.since = now;
      const elapsed = now - rate.since;
      if (elapsed >= RATE_WINDOW_MS) {
        const measured = rate.count / elapsed;
        // A long quiet spell says nothing about the burst after it: start from what was measured.
        rate.perMs =
          elapsed > 10 * RATE_WINDOW_MS || rate.perMs === 0
            ? measured
            : (rate.perMs + measured) / 2;
        rate.count = 0;
        rate.since = now;
      }
      return Math.min(PREFETCH_MAX, Math.floor(rate.perMs * PREFETCH_HORIZON_MS));
    },
    held: (queue) => buffers.get(queue)?.length ?? 0,
    size: () => total,
    hold(rows, now) {
      for (const row of rows) {
        let buffer = buffers.get(row.queue);
        if (buffer === undefined) {
          buffer = [];
          buffers.set(row.queue, buffer);
        }
        buffer.push({ row, at: now });
        total++;
      }
    },
    next(queue, now, stale) {
      for (;;) {
        const [held] = take(queue, 1);
        if (held === undefined) return undefined;
        if (now - held.at < maxAgeMs) return held.row;
        stale.push(held.row);
      }
    },
    takeStale(now) {
      const stale: ClaimedJob[] = [];
      for (const [queue, buffer] of buffers) {
        // claim order is age order: the stale rows are a prefix
        const n = buffer.findIndex((held) => now - held.at < maxAgeMs);
        for (const held of take(queue, n === -1 ? buffer.length : n)) stale.push(held.row);
      }
      return stale;
    },
    takeAll() {
      const all: ClaimedJob[] = [];
      for (const queue of buffers.keys())
        for (const held of take(queue, Infinity)) all.push(held.row);
      return all;
    },
  };
}
