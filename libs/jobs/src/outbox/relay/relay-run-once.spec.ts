import { memoryJobDriver } from '../../driver/memory';
import { frozenClock } from '../../testing/frozen-clock';
import { recordingLogger } from '../../util/logger';
import { memoryOutboxStore } from '../memory-outbox-store';
import type { OutboxStore } from '../outbox-store';
import { outboxRequest } from '../testing/outbox-store.conformance';
import { outboxRelay } from './outbox-relay';

/** A started relay over a memory store whose next claim can be held open, its claims counted by their time. */
function gatedRelay(): {
  clock: ReturnType<typeof frozenClock>;
  store: ReturnType<typeof memoryOutboxStore>;
  relay: ReturnType<typeof outboxRelay>;
  claims: number[];
  hold: () => () => void;
} {
  const clock = frozenClock();
  const store = memoryOutboxStore({ clock });
  const claims: number[] = [];
  let gate: Promise<void> | undefined;
  const gated: OutboxStore = {
    ...store,
    claim: async (options) => {
      claims.push(clock.now() - Date.UTC(2026, 0, 1));
      const held = gate;
      gate = undefined;
      const rows = await store.claim(options);
      await held; // the claim is taken; its pass is answered once the test opens the gate
      return rows;
    },
  };
  const relay = outboxRelay({
    store: gated,
    driver: memoryJobDriver({ clock }),
    clock,
    logger: recordingLogger(),
    claimant: 'run-once',
    intervalMs: 100,
  });
  const hold = (): (() => void) => {
    let open: () => void = () => undefined;
    gate = new Promise<void>((resolve) => (open = resolve));
    return open;
  };
  return { clock, store, relay, claims, hold };
}

describe('outbox relay runOnce() on a started relay', () => {
  it('keeps polling when its idle timer fell due during a runOnce() pass', async () => {
    const r = gatedRelay();
    r.relay.start();
    await r.clock.flush();
    expect(r.claims).toEqual([0]); // the first pass found nothing: the next is armed at 100 ms

    const open = r.hold();
    const once = r.relay.runOnce();
    await r.clock.advance(100); // the armed pass falls due while runOnce()'s pass holds the relay
    open();
    await once;

    await r.store.stage(outboxRequest());
    await r.clock.advance(2_000);
    expect(r.relay.stats().published).toBe(1);
    expect(r.claims.length).toBeGreaterThan(2);
    await r.relay.stop();
  });

  it('runs the pass a wake() asked for during a runOnce() pass', async () => {
    const r = gatedRelay();
    r.relay.start();
    await r.clock.flush();

    const open = r.hold();
    const once = r.relay.runOnce();
    await r.clock.flush();
    await r.store.stage(outboxRequest());
    r.relay.wake(); // a commit announced while runOnce()'s pass (which claimed before it) is in flight
    open();
    await once;
    await r.clock.flush();

    expect(r.relay.stats().published).toBe(1);
    await r.relay.stop();
  });
});
