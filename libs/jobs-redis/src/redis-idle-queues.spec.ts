import type { ClaimOptions } from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import { IdleQueues } from './redis-idle-queues';

/** The ledger with its wake's two levers in reach: liveness and an announcement heard. */
class Ledger extends IdleQueues {
  setLive(live: boolean): boolean {
    return this.flipLive(live);
  }
  announce(queue: string): void {
    this.announced(queue);
  }
}

const claimOf = (queues: string[], extra: Partial<ClaimOptions> = {}): ClaimOptions => ({
  workerId: 'w',
  visibilityTimeoutMs: 30_000,
  slots: queues.map((queue) => ({ queue, limit: 1 })),
  ...extra,
});
const EVERY = new Map<string, readonly string[] | undefined>();

describe('IdleQueues', () => {
  let clock: FrozenClock;
  let ledger: Ledger;
  /** A claim of `queues` sent now, answered with `idle` (queue → due ms, -1 none) at the server's `serverNow`. */
  const settleClaim = (
    queues: string[],
    idle: Record<string, number>,
    served: ReadonlyMap<string, readonly string[] | undefined> = EVERY,
    serverNow = clock.now(),
  ): void => {
    const mark = ledger.mark();
    ledger.settle(mark, claimOf(queues), served, serverNow, new Map(Object.entries(idle)));
  };

  beforeEach(() => {
    clock = frozenClock();
    ledger = new Ledger(clock);
    ledger.setLive(true);
  });

  it('skips a claim of queues found idle until their first due time, and never while not live', async () => {
    settleClaim(['a', 'b'], { a: clock.now() + 1_000, b: -1 });
    expect(ledger.skips(claimOf(['a', 'b']), EVERY)).toBe(true);
    await clock.advance(999);
    expect(ledger.skips(claimOf(['a']), EVERY)).toBe(true);
    await clock.advance(1);
    expect(ledger.skips(claimOf(['a']), EVERY)).toBe(false);
    // no due time: idle until something is announced
    expect(ledger.skips(claimOf(['b']), EVERY)).toBe(true);
    expect(ledger.setLive(false)).toBe(true);
    expect(ledger.live).toBe(false);
    expect(ledger.skips(claimOf(['b']), EVERY)).toBe(false);
  });

  it("measures the due time from when the claim was sent, on the server's reading", async () => {
    const sentAt = clock.now();
    // the server read 100 ms later than the local clock: the row falls due 400 ms after the claim was sent
    settleClaim(['a'], { a: sentAt + 500 }, EVERY, sentAt + 100);
    const mark = ledger.mark();
    expect(mark.sentAt).toBe(sentAt);
    await clock.advance(399);
    expect(ledger.skips(claimOf(['a']), EVERY)).toBe(true);
    await clock.advance(1);
    expect(ledger.skips(claimOf(['a']), EVERY)).toBe(false);
  });

  it('asks Redis again once the queue was announced, even while the recording claim was on the wire', () => {
    const mark = ledger.mark();
    ledger.announce('a');
    ledger.settle(
      mark,
      claimOf(['a', 'b']),
      EVERY,
      clock.now(),
      new Map([
        ['a', -1],
        ['b', -1],
      ]),
    );
    expect(ledger.skips(claimOf(['a']), EVERY)).toBe(false);
    expect(ledger.skips(claimOf(['b']), EVERY)).toBe(true);
    ledger.announce('b');
    expect(ledger.skips(claimOf(['b']), EVERY)).toBe(false);
    expect(ledger.mark().gens).toEqual(
      new Map([
        ['a', 1],
        ['b', 1],
      ]),
    );
  });

  it('asks Redis again after a write of this process, and after the wake was not live for a while', () => {
    settleClaim(['a'], { a: -1 });
    ledger.touch();
    expect(ledger.skips(claimOf(['a']), EVERY)).toBe(false);
    settleClaim(['a'], { a: -1 });
    expect(ledger.skips(claimOf(['a']), EVERY)).toBe(true);
    ledger.setLive(false);
    expect(ledger.setLive(true)).toBe(true);
    expect(ledger.setLive(true)).toBe(false);
    expect(ledger.skips(claimOf(['a']), EVERY)).toBe(false);
  });

  it('never skips a claim carrying a registry beat, skipping tenants, or asking for no row', () => {
    settleClaim(['a'], { a: -1 });
    const beat = { id: 'w', host: 'h', pid: 1, startedAt: clock.now(), slots: {}, inFlight: [] };
    const presence = { beat, visibilityTimeoutMs: 30_000 };
    expect(ledger.skips(claimOf(['a'], { presence }), EVERY)).toBe(false);
    expect(ledger.skips(claimOf(['a'], { excludeTenants: ['t'] }), EVERY)).toBe(false);
    expect(ledger.skips(claimOf(['a'], { slots: [{ queue: 'a', limit: 0 }] }), EVERY)).toBe(false);
    expect(ledger.skips(claimOf(['a']), EVERY)).toBe(true);
  });

  it('skips only a claim of names the idle claim served, and forgets queues found not idle', () => {
    settleClaim(['a', 'b'], { a: -1, b: -1 }, new Map([['a', ['x', 'y']]]));
    expect(ledger.skips(claimOf(['a']), new Map([['a', ['x']]]))).toBe(true);
    expect(ledger.skips(claimOf(['a']), new Map([['a', ['x', 'z']]]))).toBe(false);
    expect(ledger.skips(claimOf(['a']), EVERY)).toBe(false);
    // b's idle claim served every name
    expect(ledger.skips(claimOf(['b']), new Map([['b', ['z']]]))).toBe(true);
    settleClaim(['b'], {});
    expect(ledger.skips(claimOf(['b']), EVERY)).toBe(false);
    // a claim skipping tenants records nothing, and forgets what it covered
    settleClaim(['a'], { a: -1 });
    const mark = ledger.mark();
    ledger.settle(
      mark,
      claimOf(['a'], { excludeTenants: ['t'] }),
      EVERY,
      clock.now(),
      new Map([['a', -1]]),
    );
    expect(ledger.skips(claimOf(['a']), EVERY)).toBe(false);
  });
});
