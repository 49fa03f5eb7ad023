import type { HandOffOffer } from '@ultimat3/jobs';

/** The names of an offer, in a stable order: equal when it serves the same names. */
const namesText = (names: readonly string[]): string => JSON.stringify([...names].sort());

/**
 * Per queue registered on the current session: the names and free count last written, and the free count the
 * registration was last known to have left (a handed row's `free_left`, or the count written).
 */
export class HandOffCounts {
  private readonly counts = new Map<string, { names: string; free: number; left: number }>();

  /**
   * Whether the registration is worth writing: a queue offered is not registered, or for other names, or at most half
   * of its registered slots are left and the worker can take more than that. Nothing else moves it: each write
   * locks the rows enqueues hand through (they pass it by), a worker with no slot free offers nothing (and hands back
   * what it cannot start), and a free count a little high costs a hand-back, never a job.
   */
  stale(offers: readonly HandOffOffer[]): boolean {
    return offers.some((o) => {
      const c = this.counts.get(o.queue);
      if (c === undefined || c.names !== namesText(o.names)) return true;
      return c.left * 2 <= c.free && o.free > c.left;
    });
  }

  /** Counts `offers` as written: each queue's names, and its free count as both written and left. */
  written(offers: readonly HandOffOffer[]): void {
    for (const o of offers)
      this.counts.set(o.queue, { names: namesText(o.names), free: o.free, left: o.free });
  }

  /** Forgets the queues of `offers`: their write failed. */
  forget(offers: readonly HandOffOffer[]): void {
    for (const o of offers) this.counts.delete(o.queue);
  }

  /** A row of `queue` was handed: its registration has `left` slots left (one fewer than known, when not told). */
  handed(queue: string, left: unknown): void {
    const c = this.counts.get(queue);
    // a row handed before the last write can arrive after it: its count is older, and at worst costs a write early
    if (c !== undefined) c.left = typeof left === 'number' ? left : c.left - 1;
  }

  /** Forgets every queue: the session they were registered on is gone, or a new one opened. */
  clear(): void {
    this.counts.clear();
  }
}
