/** The most lapsed leases of one queue `LUA_RESCUE` reads in one call. */
export const RESCUE_PAGE = 1_000;

/**
 * Where a driver's next rescue of a queue starts reading its lapsed leases, per queue and the names it serves there.
 * The rescue reads the lapsed leases oldest lapse first, a page at a time, and leaves in place the rows of names it
 * does not serve; those stay ahead of every row that lapses later. Read from the start each time, 1,000 of them would
 * hide this worker's own lapsed rows behind them for as long as no worker serving their name comes (River #1318): a
 * worker of the old build, a rolling deploy after a new build's workers died holding rows of its new job.
 *
 * So a full page moves the offset past the rows it left in place (the rows it rescued or buried left the set: what was
 * behind them moved up), and a page that was not full — the end of the lapsed leases — brings it back to the start.
 * A row this worker can rescue is then reached within one pass over the lapsed leases: within ⌈n / 1,000⌉ + 1 rescues
 * with n rows it cannot rescue ahead of it. One lapsing meanwhile, or a lease renewed out of the set, can shift a row
 * past the offset for one pass: it is read on the next.
 */
export class RescueCursors {
  readonly #offsets = new Map<string, number>();

  /** The offset the next rescue of `queue` serving `names` (undefined: every name) starts at. */
  offset(queue: string, names: readonly string[] | undefined): number {
    return this.#offsets.get(keyOf(queue, names)) ?? 0;
  }

  /** Records what a rescue's page of `queue` read and how many of those rows it left in place. */
  advance(queue: string, names: readonly string[] | undefined, read: number, left: number): void {
    const key = keyOf(queue, names);
    const next = read >= RESCUE_PAGE ? (this.#offsets.get(key) ?? 0) + left : 0;
    if (next === 0) this.#offsets.delete(key);
    else this.#offsets.set(key, next);
  }
}

/** A queue and the names served in it, as one key: every name, or the names sorted. */
const keyOf = (queue: string, names: readonly string[] | undefined): string =>
  names === undefined
    ? `every\u0000${queue}`
    : `some\u0000${queue}\u0000${[...names].sort().join('\u0000')}`;
