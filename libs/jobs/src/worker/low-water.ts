/**
 * How often (worker clock, ms) a queue's low water is computed afresh. A row that lands below the bound a claim uses
 * (an application clock behind the database's, a held row handed back by another worker) waits at most this long.
 */
export const LOW_WATER_REFRESH_MS = 1_000;

interface Mark {
  readonly bound: number;
  /** When the claim that computed `bound` was sent: the bound is good for {@link LOW_WATER_REFRESH_MS} from then. */
  readonly askedAt: number;
}

/**
 * Per queue, the low water a worker hands its claims as a hint (`ClaimSlot.lowWater`): a lower bound on the run time
 * of every waiting row of the queue, as a claim last computed it. Unknown at start and again every
 * {@link LOW_WATER_REFRESH_MS}, when the next claim is asked to compute it. Never a correctness dependency: a stale
 * bound only delays rows below it until the next refresh.
 */
export class LowWater {
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
   * At `now`, this worker put a row of `queue` back to wait at `runAt`: the bound drops to it, so its own claims still
   * see it — a refresh answering later included.
   */
  lower(queue: string, runAt: number, now: number): void {
    const mark = this.marks.get(queue);
    if (mark !== undefined && runAt < mark.bound)
      this.marks.set(queue, { bound: runAt, askedAt: mark.askedAt });
    const lowered = this.lowered.get(queue);
    this.lowered.set(queue, { runAt: Math.min(runAt, lowered?.runAt ?? runAt), at: now });
  }
}
