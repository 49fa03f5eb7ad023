import type { ClaimedJob } from '../driver/job-row';
import { PREFETCH_HORIZON_MS, PREFETCH_MAX, PrefetchRates } from './prefetch-rate';

// the horizon and the per-queue cap are the rate's (`prefetch-rate.ts`), exported here as they always were
export { PREFETCH_HORIZON_MS, PREFETCH_MAX };

/**
 * The most rows held per slot of the queue: what a worker that dies can cost is bounded by its concurrency. What is
 * held (with what claims on the wire asked for) must cover a claim's round trip — ~10–20 ms for a few hundred rows on
 * a 2-core VM — or the slots starve while it is out: at 20,000 runs a second that is 200–400 rows. Measured on the
 * no-op drain at concurrency 10: 20 per slot ~25 % slower than 50, 50 per slot ~5 % slower than 100.
 */
export const PREFETCH_PER_SLOT = 100;
/**
 * The rows a claim took beyond a queue's free slots, held in claim order until a slot frees. A claim statement costs
 * a WAL flush whatever it takes (~1 ms on a 2-core VM), so claiming only for free slots caps a 10-slot worker near
 * 10 rows per flush; claiming ahead is what lets one process drain 20,000 no-op jobs a second.
 *
 * What bounds it: the buffer only grows with the measured completion rate (rows expected to start within
 * {@link PREFETCH_HORIZON_MS}, at most {@link PREFETCH_PER_SLOT} per slot and {@link PREFETCH_MAX}), so slow jobs
 * prefetch nothing and an idle worker holds nothing; a held row older than `maxAgeMs` (the heartbeat interval, a third
 * of the lease) is handed back rather than started, so a row starts with most of its lease left and the heartbeat takes
 * over before it could lapse. A worker that dies holding rows strands none past the visibility timeout: their leases
 * lapse and the next claim re-takes them, as a counted attempt like the runs it died with — and the claim never takes
 * ahead a row it would put on its final attempt (`ClaimSlot.ahead`), so none is buried dead without having run.
 */
export interface PrefetchBuffer {
  /** Counts a run of `queue` that ended: the rate the target follows. */
  completed(queue: string): void;
  /**
   * How many rows beyond its free slots `queue` should hold now (0 while the rate is unknown or low); `slots`, the
   * queue's slots, tells a rate rising within its window from runs that merely ended together.
   */
  target(queue: string, now: number, slots: number): number;
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

/** One queue's held rows, oldest first from `head` (taken rows are skipped, not spliced out, until half are gone). */
interface Queue {
  rows: ClaimedJob[];
  ats: number[];
  head: number;
}

/** A {@link PrefetchBuffer} whose rows start only while younger than `maxAgeMs`. */
export function prefetchBuffer(maxAgeMs: number): PrefetchBuffer {
  return new HeldRows(maxAgeMs);
}

/** Rows of `q` held. */
const heldIn = (q: Queue | undefined): number => (q === undefined ? 0 : q.rows.length - q.head);

/** The buffer {@link prefetchBuffer} builds: per queue, the rows it holds, and the rate ({@link PrefetchRates}). */
class HeldRows implements PrefetchBuffer {
  private readonly buffers = new Map<string, Queue>();
  private readonly rates = new PrefetchRates();
  private total = 0;

  constructor(private readonly maxAgeMs: number) {}

  completed(queue: string): void {
    this.rates.completed(queue);
  }

  target(queue: string, now: number, slots: number): number {
    return this.rates.target(queue, now, slots);
  }

  held(queue: string): number {
    return heldIn(this.buffers.get(queue));
  }

  size(): number {
    return this.total;
  }

  hold(rows: readonly ClaimedJob[], now: number): void {
    for (const row of rows) {
      let q = this.buffers.get(row.queue);
      if (q === undefined) {
        q = { rows: [], ats: [], head: 0 };
        this.buffers.set(row.queue, q);
      }
      q.rows.push(row);
      q.ats.push(now);
      this.total++;
    }
  }

  next(queue: string, now: number, stale: ClaimedJob[]): ClaimedJob | undefined {
    const q = this.buffers.get(queue);
    if (q === undefined) return undefined;
    while (q.head < q.rows.length) {
      const row = q.rows[q.head] as ClaimedJob;
      const at = q.ats[q.head] as number;
      this.drop(q, 1);
      if (now - at < this.maxAgeMs) return row;
      stale.push(row);
    }
    return undefined;
  }

  takeStale(now: number): ClaimedJob[] {
    const stale: ClaimedJob[] = [];
    for (const q of this.buffers.values()) {
      // claim order is age order: the stale rows are a prefix
      let n = 0;
      while (q.head + n < q.rows.length && now - (q.ats[q.head + n] as number) >= this.maxAgeMs)
        n++;
      if (n > 0) this.takeInto(q, n, stale);
    }
    return stale;
  }

  takeAll(): ClaimedJob[] {
    const all: ClaimedJob[] = [];
    for (const q of this.buffers.values()) this.takeInto(q, Infinity, all);
    return all;
  }

  /** Drops the first `n` held rows of `q` (they were taken). */
  private drop(q: Queue, n: number): void {
    q.head += n;
    this.total -= n;
    if (q.head === q.rows.length) {
      q.rows.length = 0;
      q.ats.length = 0;
      q.head = 0;
    } else if (q.head > 64 && q.head * 2 > q.rows.length) {
      q.rows.splice(0, q.head);
      q.ats.splice(0, q.head);
      q.head = 0;
    }
  }

  /** Moves the first `n` held rows of `q` to `into`. */
  private takeInto(q: Queue, n: number, into: ClaimedJob[]): void {
    const end = Math.min(q.rows.length, q.head + n);
    for (let i = q.head; i < end; i++) into.push(q.rows[i] as ClaimedJob);
    this.drop(q, end - q.head);
  }
}
