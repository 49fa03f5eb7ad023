import type { ClaimOptions, Clock } from '@ultimat3/jobs';
import type { WakeMark } from './redis-wake';

/** A queue a claim found idle: nothing claimable until `until` (local ms) unless announced since `all`/`gen`. */
interface IdleQueue {
  readonly all: number;
  readonly gen: number;
  /** The names the idle claim served; undefined: every name. */
  readonly names: ReadonlySet<string> | undefined;
  readonly until: number;
}

/** Whether every name `slot` serves was served by the idle claim (`undefined`: every name). */
function covered(
  idle: ReadonlySet<string> | undefined,
  slot: readonly string[] | undefined,
): boolean {
  if (idle === undefined) return true;
  return slot !== undefined && slot.every((n) => idle.has(n));
}

/**
 * What lets a live wake skip idle claims (see {@link RedisWake}): whether the wake is live, the queues claims found
 * idle and until when, and the announcement counts they were recorded under — per queue (`gens`, one a message heard)
 * and for all of them (`all`, bumped by a write of this process that can make rows claimable and by a wake that stops
 * being live). The wake's subscription part ({@link redisWake}) extends it and drives `flipLive` and `announced`.
 */
export class IdleQueues {
  private isLive = false;
  private all = 0;
  private readonly gens = new Map<string, number>();
  private readonly idleQueues = new Map<string, IdleQueue>();

  constructor(private readonly clock: Clock | undefined) {}

  /** Whether the subscription is proven live now. */
  get live(): boolean {
    return this.isLive;
  }

  /** This process wrote something that can make rows claimable: every recorded idle queue is stale. */
  touch(): void {
    this.all++;
  }

  /** Whether a claim of `options` can be answered empty without asking Redis. */
  skips(
    options: ClaimOptions,
    served: ReadonlyMap<string, readonly string[] | undefined>,
  ): boolean {
    // a claim carrying a registry beat (`presence`) must reach Redis to renew it
    if (!this.isLive || options.presence !== undefined || (options.excludeTenants?.length ?? 0) > 0)
      return false;
    const t = this.now();
    let asks = false;
    for (const slot of options.slots) {
      if ((slot.limit ?? 0) + (slot.ahead ?? 0) <= 0) continue;
      asks = true;
      const q = this.idleQueues.get(slot.queue);
      if (q === undefined || q.all !== this.all || q.gen !== (this.gens.get(slot.queue) ?? 0))
        return false;
      if (t >= q.until || !covered(q.names, served.get(slot.queue))) return false;
    }
    return asks;
  }

  /** The counts now, taken when a claim is sent. */
  mark(): WakeMark {
    return { sentAt: this.now(), all: this.all, gens: new Map(this.gens) };
  }

  /** Records the queues a claim sent under `mark` found idle (`idle`: queue → due ms, server `now`); forgets the rest. */
  settle(
    mark: WakeMark,
    options: ClaimOptions,
    served: ReadonlyMap<string, readonly string[] | undefined>,
    serverNow: number,
    idle: ReadonlyMap<string, number>,
  ): void {
    const recordable = (options.excludeTenants?.length ?? 0) === 0;
    for (const slot of options.slots) {
      const due = idle.get(slot.queue);
      if (due === undefined || !recordable) {
        this.idleQueues.delete(slot.queue);
        continue;
      }
      const names = served.get(slot.queue);
      this.idleQueues.set(slot.queue, {
        all: mark.all,
        gen: mark.gens.get(slot.queue) ?? 0,
        names: names === undefined ? undefined : new Set(names),
        // measured from when the claim was sent: never later than the server's own reading
        until: due < 0 ? Infinity : mark.sentAt + (due - serverNow),
      });
    }
  }

  /**
   * Sets whether the wake is live; answers whether that changed. A wake no longer live may have missed announcements:
   * every recorded idle queue is stale then.
   */
  protected flipLive(next: boolean): boolean {
    if (next === this.isLive) return false;
    this.isLive = next;
    if (!next) this.all++;
    return true;
  }

  /** `queue` was announced: what a claim found idle there is stale. */
  protected announced(queue: string): void {
    this.gens.set(queue, (this.gens.get(queue) ?? 0) + 1);
  }

  private now(): number {
    return this.clock ? this.clock.now() : Date.now();
  }
}
