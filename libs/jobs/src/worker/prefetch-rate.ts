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
 * Per queue, the completion rate a prefetch buffer follows and the target it sets: the rows a queue should hold beyond
 * its free slots, those expected to start within {@link PREFETCH_HORIZON_MS} (at most {@link PREFETCH_MAX}).
 */
export class PrefetchRates {
  private readonly rates = new Map<string, Rate>();

  /** Counts a run of `queue` that ended. */
  completed(queue: string): void {
    const rate = this.rates.get(queue);
    if (rate !== undefined) rate.count++;
    else this.rates.set(queue, { count: 1, since: Number.NaN, perMs: 0 });
  }

  /**
   * How many rows beyond its free slots `queue` should hold now (0 while the rate is unknown or low); `slots`, the
   * queue's slots, tells a rate rising within its window from runs that merely ended together.
   */
  target(queue: string, now: number, slots: number): number {
    const rate = this.rateOf(queue, now);
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
        elapsed > 10 * RATE_WINDOW_MS || rate.perMs === 0 ? measured : (rate.perMs + measured) / 2;
      rate.count = 0;
      rate.since = now;
    }
    return Math.min(PREFETCH_MAX, Math.floor(rate.perMs * PREFETCH_HORIZON_MS));
  }

  private rateOf(queue: string, now: number): Rate {
    let rate = this.rates.get(queue);
    if (rate === undefined) {
      rate = { count: 0, since: now, perMs: 0 };
      this.rates.set(queue, rate);
    }
    return rate;
  }
}
