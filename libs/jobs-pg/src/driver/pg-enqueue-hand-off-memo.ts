/**
 * How long after a `SQL_ENQUEUE_HAND_OFF` of a queue found no worker registered for it this driver's single enqueues
 * of that queue go the plain way (ms). The hand-off statement costs a little more than the plain insert (the
 * registration's lookup and its checks), which a producer with no idle worker to hand to would pay on every enqueue;
 * after a miss it pays it at most ten times a second. A row not handed is inserted and announced as always: a miss
 * costs no job anything.
 */
export const HAND_OFF_RETRY_MS = 100;
/**
 * How long this driver's single enqueues go the plain way after the hand-off statement found no `x_job_hand_offs`
 * (ms): a schema migrated before 0018, which a build ahead of its migration meets during a rolling deploy.
 */
export const HAND_OFF_ABSENT_RETRY_MS = 60_000;
/** Queues remembered at most; past it the memo starts afresh. */
const MAX_QUEUES = 64;

/** Which queues this driver's single enqueues try to hand to an idle worker (`SQL_ENQUEUE_HAND_OFF`). */
export class HandOffMemo {
  /** Per queue, when (on {@link elapsed}) its last hand-off found no worker registered. */
  private readonly misses = new Map<string, number>();
  /** Until when (on {@link elapsed}) no queue tries: the table was missing. */
  private absentUntil = Number.NEGATIVE_INFINITY;

  /** `elapsed`: a monotonic millisecond clock (default `performance.now`). */
  constructor(private readonly elapsed: () => number = () => performance.now()) {}

  /** Whether the next single enqueue of `queue` tries the hand-off. */
  tries(queue: string): boolean {
    const now = this.elapsed();
    if (now < this.absentUntil) return false;
    const missed = this.misses.get(queue);
    return missed === undefined || now - missed >= HAND_OFF_RETRY_MS;
  }

  /** Learns that the schema has no `x_job_hand_offs` (yet): no queue tries for {@link HAND_OFF_ABSENT_RETRY_MS}. */
  absent(): void {
    this.absentUntil = this.elapsed() + HAND_OFF_ABSENT_RETRY_MS;
  }

  /** Learns whether a hand-off of `queue` found a worker registered for it (whether or not it could hand its row). */
  learn(queue: string, registered: boolean): void {
    if (registered) {
      this.misses.delete(queue);
      return;
    }
    if (this.misses.size >= MAX_QUEUES && !this.misses.has(queue)) this.misses.clear();
    this.misses.set(queue, this.elapsed());
  }
}
