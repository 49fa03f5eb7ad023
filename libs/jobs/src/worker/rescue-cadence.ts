/**
 * At most how often (worker clock, ms) a worker's claim carries a rescue of lapsed leases (`claimAndRescue`; a claim
 * between rescues is a plain `driver.claim`, which leaves lapsed leases alone): re-takes the rows of a worker that
 * died, and buries those on their final attempt, the burials answered in the rescue's result. A dead worker's rows
 * come back at most this long after their lease lapses while the worker claims (an idle one: at its next poll after
 * that).
 */
export const RESCUE_INTERVAL_MS = 1_000;

/**
 * When a worker's claim rescues lapsed leases: its first claim, then at most once every {@link RESCUE_INTERVAL_MS},
 * busy or idle. Rescue is the costly part of a claim under a held snapshot, and lapsed leases are rare. An idle
 * worker's claims are not rare either: with a live wake each job another process enqueues is one, and on PostgreSQL a
 * rescuing claim is `SQL_CLAIM`, planned afresh each time (2.5 ms against 1.2 ms for `SQL_CLAIM_WAITING`'s one-row
 * claim, medians measured interleaved on a loaded 2-core VM) — the pickup's critical path. An idle worker polls at
 * least every 250 ms, so its polls still rescue about once a second, at its idle ceiling every time.
 */
export class RescueCadence {
  /** When the last rescuing claim was sent; undefined before the first, or after one failed. */
  private last: number | undefined;

  constructor(private readonly intervalMs: number = RESCUE_INTERVAL_MS) {}

  /** Whether a claim sent at `now` rescues; a true answer counts as sent. */
  due(now: number): boolean {
    if (this.last !== undefined && now - this.last < this.intervalMs) return false;
    this.last = now;
    return true;
  }

  /** The rescuing claim sent at `sentAt` failed: the next claim rescues. */
  failed(sentAt: number): void {
    if (this.last === sentAt) this.last = undefined;
  }
}
