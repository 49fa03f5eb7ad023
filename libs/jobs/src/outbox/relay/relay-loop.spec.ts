import { memoryJobDriver } from '../../driver/memory';
import { frozenClock, type FrozenClock } from '../../testing/frozen-clock';
import { recordingLogger, type RecordingLogger } from '../../util/logger';
import { memoryOutboxStore, type MemoryOutboxStore } from '../memory-outbox-store';
import type { OutboxStore } from '../outbox-store';
import { outboxRequest } from '../testing/outbox-store.conformance';
import { resolveRelayOptions, type OutboxRelayOptions } from './relay-options';
import { RelayLoop } from './relay-loop';

interface Rig {
  clock: FrozenClock;
  store: MemoryOutboxStore;
  logger: RecordingLogger;
  claims: number[];
  loop: RelayLoop;
  /** While set, every claim fails as the database out of reach. */
  outage: { now: boolean };
}

/** A loop over a memory store whose claims are counted by the time they were issued. */
function rig(overrides: Partial<OutboxRelayOptions> = {}): Rig {
  const clock = frozenClock();
  const store = memoryOutboxStore({ clock });
  const logger = recordingLogger();
  const outage = { now: false };
  const claims: number[] = [];
  const counted: OutboxStore = {
    ...store,
    claim: (options) => {
      claims.push(clock.now() - Date.UTC(2026, 0, 1));
      return outage.now ? Promise.reject(new Error('connect ECONNREFUSED')) : store.claim(options);
    },
  };
  const config = resolveRelayOptions({
    store: counted,
    driver: memoryJobDriver({ clock }),
    clock,
    logger,
    claimant: 'loop-a',
    intervalMs: 100,
    ...overrides,
  });
  return { clock, store, logger, claims, outage, loop: new RelayLoop(config) };
}

describe('RelayLoop', () => {
  it('counts what its passes did, and the wake it was told of', async () => {
    const r = rig();
    await r.store.stage(outboxRequest());
    await r.store.stage(outboxRequest());
    expect(r.loop.claimant).toBe('loop-a');
    await r.loop.runOnce();
    await r.loop.runOnce();
    r.loop.setWakeLive(true);
    expect(r.loop.stats()).toEqual({
      passes: 2,
      claimed: 2,
      published: 2,
      deduped: 0,
      released: 0,
      publishFailures: 0,
      quarantined: 0,
      tickFailures: 0,
      wakeLive: true,
    });
  });

  it('keeps going until it drains, then refuses runOnce() and start()', async () => {
    const r = rig();
    expect(r.loop.keepGoing()).toBe(true);
    r.loop.start();
    expect(() => r.loop.start()).toThrow(expect.objectContaining({ code: 'X_INVARIANT' }));
    r.loop.beginDrain();
    r.loop.beginDrain();
    expect(r.loop.keepGoing()).toBe(false);
    await expect(r.loop.runOnce()).rejects.toMatchObject({ code: 'X_INVARIANT' });
    await r.loop.stop(undefined);
    await r.loop.stop(undefined);
    expect(r.logger.named('jobs.outbox.relay-draining')).toHaveLength(1);
    expect(r.logger.named('jobs.outbox.relay-stopped')).toHaveLength(1);
    expect(r.clock.pending()).toBe(0);
  });

  it('idles up to 2 s without a wake and 5 s with one, dropping back at once when the wake is lost', async () => {
    const r = rig();
    r.loop.start();
    await r.clock.advance(5_100);
    expect(r.claims).toEqual([0, 100, 300, 700, 1_500, 3_100, 5_100]);
    r.loop.setWakeLive(true);
    await r.clock.advance(13_000);
    // the wait armed before the wake doubles on from 2 s, now up to 5 s
    expect(r.claims.slice(7)).toEqual([7_100, 9_100, 13_100, 18_100]);
    r.loop.setWakeLive(false);
    await r.clock.advance(7_000);
    // the 5 s wait already armed runs out; the next one is clamped back to 2 s
    expect(r.claims.slice(11)).toEqual([23_100, 25_100]);
    await r.loop.stop(undefined);
  });

  it('counts a pass that throws and re-arms after the interval', async () => {
    const r = rig({ faults: { afterPublish: () => Promise.reject(new Error('boom')) } });
    await r.store.stage(outboxRequest());
    r.loop.start();
    await r.clock.flush();
    expect(r.loop.stats().tickFailures).toBe(1);
    expect(r.logger.named('jobs.outbox.tick-failed')[0]?.fields).toMatchObject({ relay: 'loop-a' });
    await r.clock.advance(100);
    expect(r.claims).toEqual([0, 100]);
    await r.loop.stop(undefined);
  });

  it('backs off while its passes keep failing (an outage), and passes at the interval again once one succeeds', async () => {
    const clock = frozenClock();
    const store = memoryOutboxStore({ clock });
    const claims: number[] = [];
    let down = true;
    const loop = new RelayLoop(
      resolveRelayOptions({
        store: {
          ...store,
          claim: (options) => {
            claims.push(clock.now() - Date.UTC(2026, 0, 1));
            return down ? Promise.reject(new Error('connect ECONNREFUSED')) : store.claim(options);
          },
        },
        driver: memoryJobDriver({ clock }),
        clock,
        logger: recordingLogger(),
        claimant: 'loop-a',
        intervalMs: 100,
      }),
    );
    await store.stage(outboxRequest());
    loop.start();
    await clock.advance(9_100);
    // the interval, then twice as long after each failed pass, up to the 2 s idle ceiling
    expect(claims).toEqual([0, 100, 300, 700, 1_500, 3_100, 5_100, 7_100, 9_100]);
    expect(loop.stats().tickFailures).toBe(9);
    down = false;
    await clock.advance(2_000);
    // the pass at 11.1 s publishes the row and passes again at once; the back-off is over: the interval follows
    await clock.advance(100);
    expect(claims.slice(9)).toEqual([11_100, 11_100, 11_200]);
    expect(loop.stats().published).toBe(1);
    await loop.stop(undefined);
  });

  it('never idles below its interval: an interval above the 2 s ceiling is the ceiling, and so is an equal one', async () => {
    const slow = rig({ intervalMs: 3_000 });
    slow.loop.start();
    await slow.clock.advance(9_000);
    expect(slow.claims).toEqual([0, 3_000, 6_000, 9_000]);
    await slow.loop.stop(undefined);
    const flat = rig({ idlePollMaxMs: 100 });
    flat.loop.start();
    await flat.clock.advance(300);
    expect(flat.claims).toEqual([0, 100, 200, 300]);
    await flat.loop.stop(undefined);
  });

  it('puts the wait back at the interval after a wake met the idle pass in flight', async () => {
    const r = rig();
    r.loop.start();
    await r.clock.advance(1_600);
    expect(r.claims).toEqual([0, 100, 300, 700, 1_500]); // the next idle pass is armed at 3.1 s
    r.loop.wake();
    r.loop.wake(); // meets the pass the first wake began: another runs straight after it
    await r.clock.advance(300);
    expect(r.claims.slice(5)).toEqual([1_600, 1_600, 1_700, 1_900]);
    await r.loop.stop(undefined);
  });

  it('starts a new outage back at the interval once a pass between succeeded', async () => {
    const r = rig();
    r.outage.now = true;
    r.loop.start();
    await r.clock.advance(700);
    expect(r.claims).toEqual([0, 100, 300, 700]); // backing off: the next is at 1.5 s
    r.outage.now = false;
    await r.clock.advance(800);
    r.outage.now = true; // the pass at 1.5 s succeeded; the next, at 1.6 s, fails again
    await r.clock.advance(300);
    expect(r.claims.slice(4)).toEqual([1_500, 1_600, 1_700]);
    await r.loop.stop(undefined);
  });

  it('leaves no timer behind when a stop joined the pass before its deadline', async () => {
    const r = rig();
    await r.store.stage(outboxRequest());
    r.loop.start();
    await r.loop.stop(r.clock.now() + 10_000);
    expect(r.loop.stats()).toMatchObject({ passes: 1, claimed: 1 });
    expect(r.logger.named('jobs.outbox.drain-abandoned')).toEqual([]);
    expect(r.clock.pending()).toBe(0);
  });
});
