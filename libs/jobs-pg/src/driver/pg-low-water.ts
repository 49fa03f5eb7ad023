/**
 * How often (driver clock, ms) a queue's low water is computed afresh. A row that lands below the bound a claim uses
 * (another process's clock behind this one, a row another process put back in the past) waits at most this long.
 */
export const LOW_WATER_REFRESH_MS = 1_000;

interface Mark {
  readonly bound: number;
  /** When the claim that computed `bound` was sent: the bound is good for {@link LOW_WATER_REFRESH_MS} from then. */
  readonly askedAt: number;
}

/**
 * Per queue, the low water the PostgreSQL driver starts its claims' waiting scans at (`SQL_CLAIM` $9 / $10,
 * `SQL_CLAIM_WAITING` $7): a lower bound on the run time of every waiting row of the queue, as one of its claims last
 * computed it. Unknown at start and again every {@link LOW_WATER_REFRESH_MS}, when the next claim computes it. Never
 * a correctness dependency: a stale bound only delays rows below it until the next refresh. One per driver, shared by
 * every worker on it; the driver lowers it itself for the rows it puts back in the past (an enqueue or a nack with a
 * run time below it), so only another process's such rows wait for a refresh.
 */
export class PgLowWater {
  private readonly marks = new Map<string, Mark>();
  /** Per queue, the least run time this worker put a row back at, and when: a refresh in flight may not have seen it. */
  private readonly lowered = new Map<string, { readonly runAt: number; readonly at: number }>();

  constructor(private readonly refreshMs: number = LOW_WATER_REFRESH_MS) {}

  /** The hint for a claim of `queue` sent at `now`: the bound, or null to ask the claim for a fresh one. */
  hint(queue: string, now: number): number | null {
    const mark = this.marks.get(queue);
    return mark !== undefined && now - mark.askedAt < this.refreshMs ? mark.bound : null;
  }

  /** The bound last learned for `queue`, however old; undefined before any claim reported one. */
  bound(queue: string): number | undefined {
    return this.marks.get(queue)?.bound;
  }

  /** A claim sent at `askedAt` computed `bound` for `queue`. An answer older than the one kept is dropped. */
  learn(queue: string, bound: number, askedAt: number): void {
    const mark = this.marks.get(queue);
    if (mark !== undefined && mark.askedAt > askedAt) return;
    const lowered = this.lowered.get(queue);
    if (lowered !== undefined && lowered.at < askedAt) this.lowered.delete(queue);
    const put =
      lowered !== undefined && lowered.at >= askedAt ? Math.min(bound, lowered.runAt) : bound;
    this.marks.set(queue, { bound: put, askedAt });
  }

  /**
   * At `now`, this driver put a row of `queue` to wait at `runAt`: the bound drops to it, so its own claims still see
   * it — a refresh answering later included.
   */
  lower(queue: string, at: number, now: number): void {
    // the row is stored at a whole ms (a Date drops the fraction): the bound is the whole ms at or below it
    const runAt = Math.floor(at);
    const mark = this.marks.get(queue);
    if (mark !== undefined && runAt < mark.bound)
      this.marks.set(queue, { bound: runAt, askedAt: mark.askedAt });
    const lowered = this.lowered.get(queue);
    this.lowered.set(queue, { runAt: Math.min(runAt, lowered?.runAt ?? runAt), at: now });
  }

  /** {@link PgLowWater.lower} for every queue with a bound: a row of an unknown queue was put to wait at `runAt`. */
  lowerAll(runAt: number, now: number): void {
    for (const queue of [...this.marks.keys()]) this.lower(queue, runAt, now);
  }

  /** Whether a row put to wait at `runAt` could hide below a bound a claim may compute or use (one second of slack). */
  static mayHide(runAt: number, now: number): boolean {
    return runAt < now - LOW_WATER_SLACK_MS;
  }
}

/**
 * The claim never reports a low water above its own time less this (see `SQL_CLAIM`): a row put to wait at or after
 * `now - LOW_WATER_SLACK_MS` is never below a bound, and needs no {@link PgLowWater.lower}.
 */
export const LOW_WATER_SLACK_MS = 1_000;
