import type { ClaimedJob } from '../driver/job-row';

/**
 * How far ahead a busy worker claims: the rows it expects to start within this long. It sizes the claims too — one is
 * sent once a third of the target is missing — and a claim's and an ack's statement cost a fixed part (a round trip, a
 * commit, waking the backend) whatever their rows: at 50 ms the no-op drain sent ~20 statements per 1,000 jobs (~100
 * rows a claim, fewer on a loaded machine, where the measured rate drops and the claims shrink with it), at 150–250 ms
 * ~9, and the worker's CPU per job fell by a third (measured interleaved on a 2-core VM under load: 29–31 µs in the
 * worker and 48–51 µs in PostgreSQL per job against 36–47 and 60–86 µs).
 */
export const PREFETCH_HORIZON_MS = 200;
/** The most claimed-but-not-started rows one queue's buffer holds. */
export const PREFETCH_MAX = 1_000;
/**
 * The most rows held per slot of the queue: what a worker that dies can cost is bounded by its concurrency. What is
 * held (with what claims on the wire asked for) must cover a claim's round trip — ~10–20 ms for a few hundred rows on
 * a 2-core VM — or the slots starve while it is out: at 20,000 runs a second that is 200–400 rows. Measured on the
 * no-op drain at concurrency 10: 20 per slot ~25 % slower than 50, 50 per slot ~5 % slower than 100.
 */
export const PREFETCH_PER_SLOT = 100;
/** The window the completion rate is measured over. */
const RATE_WINDOW_MS = 100;
/**
 * A rate rising within its window is taken at once, before the window ends, once the window is this long and every
 * slot of the queue turned over {@link EARLY_TURNOVERS} times in it. A burst after a quiet spell otherwise ran its
 * first 100 ms on claims of its free slots alone: a 10-slot worker sent 22–23 claims for a burst of 1,000 no-op jobs,
 * 11–14 with the early rate (`pickup-trace.mjs`, three interleaved rounds; the burst's wall-clock did not move
 * measurably on the 2-core VM, where the producer's and the server's CPU bound it). Slots turning over that often mean
 * short runs, so rows claimed ahead on this rate start well within the horizon; ten slow runs that end together are
 * one turnover, not a rate.
 */
const EARLY_MS = 10;
/** How many times each slot must have turned over in a window before its rate is taken early ({@link EARLY_MS}). */
const EARLY_TURNOVERS = 3;

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
  const buffers = new Map<string, Queue>();
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

  const heldIn = (q: Queue | undefined): number => (q === undefined ? 0 : q.rows.length - q.head);

  /** Drops the first `n` held rows of `q` (they were taken). */
  const drop = (q: Queue, n: number): void => {
    q.head += n;
    total -= n;
    if (q.head === q.rows.length) {
      q.rows.length = 0;
      q.ats.length = 0;
      q.head = 0;
    } else if (q.head > 64 && q.head * 2 > q.rows.length) {
      q.rows.splice(0, q.head);
      q.ats.splice(0, q.head);
      q.head = 0;
    }
  };

  /** Moves the first `n` held rows of `q` to `into`. */
  const takeInto = (q: Queue, n: number, into: ClaimedJob[]): void => {
    const end = Math.min(q.rows.length, q.head + n);
    for (let i = q.head; i < end; i++) into.push(q.rows[i] as ClaimedJob);
    drop(q, end - q.head);
  };

  return {
    completed(queue) {
      const rate = rates.get(queue);
      if (rate !== undefined) rate.count++;
      else rates.set(queue, { count: 1, since: Number.NaN, perMs: 0 });
    },
    target(queue, now, slots) {
      const rate = rateOf(queue, now);
      if (Number.isNaN(rate.since)) rate.since = now;
      const elapsed = now - rate.since;
      if (elapsed < RATE_WINDOW_MS) {
        // a rising rate counts at once; the window's end still averages it with the last one
        if (elapsed >= EARLY_MS && rate.count >= EARLY_TURNOVERS * slots) {
          rate.perMs = Math.max(rate.perMs, rate.count / elapsed);
        }
      } else {
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
    held: (queue) => heldIn(buffers.get(queue)),
    size: () => total,
    hold(rows, now) {
      for (const row of rows) {
        let q = buffers.get(row.queue);
        if (q === undefined) {
          q = { rows: [], ats: [], head: 0 };
          buffers.set(row.queue, q);
        }
        q.rows.push(row);
        q.ats.push(now);
        total++;
      }
    },
    next(queue, now, stale) {
      const q = buffers.get(queue);
      if (q === undefined) return undefined;
      while (q.head < q.rows.length) {
        const row = q.rows[q.head] as ClaimedJob;
        const at = q.ats[q.head] as number;
        drop(q, 1);
        if (now - at < maxAgeMs) return row;
        stale.push(row);
      }
      return undefined;
    },
    takeStale(now) {
      const stale: ClaimedJob[] = [];
      for (const q of buffers.values()) {
        // claim order is age order: the stale rows are a prefix
        let n = 0;
        while (q.head + n < q.rows.length && now - (q.ats[q.head + n] as number) >= maxAgeMs) n++;
        if (n > 0) takeInto(q, n, stale);
      }
      return stale;
    },
    takeAll() {
      const all: ClaimedJob[] = [];
      for (const q of buffers.values()) takeInto(q, Infinity, all);
      return all;
    },
  };
}
