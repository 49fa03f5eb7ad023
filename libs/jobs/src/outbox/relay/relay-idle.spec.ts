import { memoryJobDriver } from '../../driver/memory';
import { frozenClock, type FrozenClock } from '../../testing/frozen-clock';
import { memoryOutboxStore } from '../memory-outbox-store';
import type { OutboxStore } from '../outbox-store';
import { outboxRequest } from '../testing/outbox-store.conformance';
import { outboxRelay, type OutboxRelay } from './outbox-relay';
import {
  OUTBOX_RELAY_IDLE_POLL_MAX_MS,
  OUTBOX_RELAY_WOKEN_IDLE_POLL_MAX_MS,
  type OutboxRelayOptions,
} from './relay-options';

const MINUTE = 60_000;

/** A relay over a memory store whose claims are counted by the time they were issued. */
function countedRelay(overrides: Partial<OutboxRelayOptions> = {}): {
  clock: FrozenClock;
  relay: OutboxRelay;
  claims: number[];
  store: ReturnType<typeof memoryOutboxStore>;
} {
  const clock = frozenClock();
  const store = memoryOutboxStore({ clock });
  const claims: number[] = [];
  const counted: OutboxStore = {
    ...store,
    claim: (options) => {
      claims.push(clock.now());
      return store.claim(options);
    },
  };
  const relay = outboxRelay({
    store: counted,
    driver: memoryJobDriver({ clock }),
    clock,
    ...overrides,
  });
  return { clock, relay, claims, store };
}

/** Claims issued in (from, from + ms]. */
const within = (claims: readonly number[], from: number, ms: number): number =>
  claims.filter((at) => at > from && at <= from + ms).length;

/** The relay's idle cost: 12 claims per idle minute with a proven wake, 30 without. */
describe('outbox relay idle cost', () => {
  let relay: OutboxRelay | undefined;
  afterEach(async () => {
    await relay?.stop();
    relay = undefined;
  });

  it('costs 30 claims per idle minute without a wake (ceiling 2 s)', async () => {
    const w = countedRelay();
    relay = w.relay;
    relay.start();
    await w.clock.advance(10_000);
    const from = w.claims.at(-1) ?? 0;
    await w.clock.advance(2 * MINUTE);

    expect(OUTBOX_RELAY_IDLE_POLL_MAX_MS).toBe(2_000);
    expect(within(w.claims, from, MINUTE)).toBe(30);
    expect(within(w.claims, from + MINUTE, MINUTE)).toBe(30);
  });

  it('costs 12 claims per idle minute while a proven wake is live (ceiling 5 s)', async () => {
    const w = countedRelay();
    relay = w.relay;
    relay.start();
    relay.setWakeLive(true);
    await w.clock.advance(20_000);
    const from = w.claims.at(-1) ?? 0;
    await w.clock.advance(2 * MINUTE);

    expect(OUTBOX_RELAY_WOKEN_IDLE_POLL_MAX_MS).toBe(5_000);
    expect(within(w.claims, from, MINUTE)).toBe(12);
    expect(within(w.claims, from + MINUTE, MINUTE)).toBe(12);
  });

  it('a wake lost drops the ceiling back to 2 s from the next wait', async () => {
    const w = countedRelay();
    relay = w.relay;
    relay.start();
    relay.setWakeLive(true);
    await w.clock.advance(30_000);
    relay.setWakeLive(false);
    await w.clock.advance(10_000); // the wait armed at 5 s runs out; every one after it is 2 s
    const from = w.claims.at(-1) ?? 0;
    await w.clock.advance(MINUTE);
    expect(within(w.claims, from, MINUTE)).toBe(30);
  });

  it('a declared idlePollMaxMs is the ceiling either way', async () => {
    const w = countedRelay({ idlePollMaxMs: 10_000 });
    relay = w.relay;
    relay.start();
    relay.setWakeLive(true);
    await w.clock.advance(40_000);
    const from = w.claims.at(-1) ?? 0;
    await w.clock.advance(MINUTE);
    expect(within(w.claims, from, MINUTE)).toBe(6);
  });

  it('at the woken ceiling, wake() still publishes a committed row at once', async () => {
    const w = countedRelay();
    relay = w.relay;
    relay.start();
    relay.setWakeLive(true);
    await w.clock.advance(MINUTE);
    const tx = w.store.begin();
    await w.store.stage(outboxRequest(), tx);
    tx.commit();
    const at = w.clock.now();
    relay.wake();
    await w.clock.flush();
    expect(w.clock.now()).toBe(at);
    expect(relay.stats().published).toBe(1);
  });
});
