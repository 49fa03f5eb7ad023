import type { HandOffOffer, WakeHandOff } from '@ultimat3/jobs';
import type { RedisContext } from './redis-context';

/** The names of a registration (see `LUA_HAND_OFF`): NUL-led, -separated and -ended. */
const namesText = (names: readonly string[]): string => `\u0000${names.join('\u0000')}\u0000`;

/**
 * A worker's hand-off registrations: the queues it registered for, sent as `LUA_HAND_OFF_REGISTER` on the pop's
 * connection (right before each pop), and removed with `LUA_HAND_OFF_LEAVE`, which answers what was handed and not
 * popped.
 */
export class HandOffRegistration {
  private readonly workerId: string;
  /** Every queue ever registered (a stop deregisters them all), and those the last registration offered. */
  private readonly queues = new Set<string>();
  private registered = new Set<string>();

  /**
   * `popCtx`: the scripts on the pop's connection; `ttlMs`: how long a registration outlives the pop it was sent
   * with.
   */
  constructor(
    private readonly ctx: RedisContext,
    private readonly popCtx: RedisContext,
    private readonly target: Pick<WakeHandOff, 'workerId' | 'visibilityTimeoutMs'>,
    private readonly ttlMs: number,
  ) {
    this.workerId = target.workerId;
  }

  /** Whether some queue is registered (as far as this worker knows). */
  get any(): boolean {
    return this.registered.size > 0;
  }

  /**
   * Registers `offers` on the pop's connection (`LUA_HAND_OFF_REGISTER`, which takes the rows still on the list off
   * each count) and deregisters the queues registered before and not offered now.
   */
  register(offers: readonly HandOffOffer[]): Promise<unknown> {
    const argv: (string | number)[] = [this.workerId, this.ttlMs, this.target.visibilityTimeoutMs];
    argv.push(offers.length);
    const offered = new Set<string>();
    for (const offer of offers) {
      offered.add(offer.queue);
      this.queues.add(offer.queue);
      argv.push(offer.queue, offer.free, namesText(offer.names));
    }
    const dropped = [...this.registered].filter((q) => !offered.has(q));
    argv.push(dropped.length, ...dropped);
    this.registered = offered;
    return this.popCtx.run('handOffRegister', argv);
  }

  /** Deregisters every queue and answers what was on the list; `mark` ends a pop still waiting. */
  async leave(mark: boolean): Promise<unknown[]> {
    this.registered = new Set();
    const left = await this.ctx.run('handOffLeave', [
      this.workerId,
      mark ? '1' : '0',
      this.queues.size,
      ...this.queues,
    ]);
    return Array.isArray(left) ? left : [];
  }

  /**
   * A registration whose answer was lost (a failed pop) may have landed: every queue ever registered counts as
   * registered, so the next registration deregisters those it does not offer.
   */
  answerLost(): void {
    this.registered = new Set(this.queues);
  }
}
