import type { Clock } from '../../util/clock';

/**
 * One read (one statement) shared by every caller within `maxAgeMs` of the last one, or during it: a scrape storm
 * across replicas costs each process at most one statement per window. A failed read is kept as long as an answer,
 * for the same reason: a storm during an outage must not become a storm of connects.
 */
export class ThrottledRead<T> {
  #read: Promise<T> | undefined;
  #readAt = -Infinity;
  #reads = 0;

  constructor(
    private readonly source: () => Promise<T>,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly maxAgeMs: number,
  ) {}

  /** Reads sent so far (what a test of the storm bound counts). */
  get reads(): number {
    return this.#reads;
  }

  /** The answer, at most `maxAgeMs` old on the clock. */
  read(): Promise<T> {
    const now = this.clock.now();
    if (this.#read === undefined || now - this.#readAt >= this.maxAgeMs) {
      this.#readAt = now;
      this.#reads += 1;
      this.#read = this.source();
      // a rejection is answered to every caller of this window; none of them may leave it unhandled
      this.#read.catch(() => undefined);
    }
    return this.#read;
  }
}
