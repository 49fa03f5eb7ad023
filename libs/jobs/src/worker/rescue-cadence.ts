/**
 * At most how often (worker clock, ms) a busy worker's claim carries a rescue of lapsed leases (`claimAndRescue`; a
 * claim between rescues is a plain `driver.claim`, which leaves lapsed leases alone): re-takes the rows of a worker that died, and buries those on
 * their final attempt, the burials answered in the rescue's result. A dead worker's rows come back at most this
 * long after their lease lapses. An idle worker's claims always rescue.
 */
export const RESCUE_INTERVAL_MS = 1_000;

/**
 * When a worker's claim rescues lapsed leases: its first claim, every claim sent with nothing in flight (idle claims
 * are cheap and rare, and an idle fleet keeps re-taking a dead worker's rows at the visibility timeout), and otherwise
 * at most once every {@link RESCUE_INTERVAL_MS}. Rescue is the costly part of a claim under a held snapshot (see
 * `SQL_CLAIM`), and lapsed leases are rare.
 */
export class RescueCadence {
  /** When the last rescuing claim was sent; undefined before the first, or after one failed. */
  private last: number | undefined;

  constructor(private readonly intervalMs: number = RESCUE_INTERVAL_MS) {}

  /** Whether a claim sent at `now` rescues (`idle`: the worker has nothing in flight); a true answer counts as sent. */
  due(now: number, idle: boolean): boolean {
    if (!idle && this.last !== undefined && now - this.last < this.intervalMs) return false;
    this.last = now;
    return true;
  }

  /** The rescuing claim sent at `sentAt` failed: the next claim rescues. */
  failed(sentAt: number): void {
    if (this.last === sentAt) this.last = undefined;
  }
}
