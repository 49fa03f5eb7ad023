import type { EnqueueRequest, JobDriver } from '../../driver/job-driver';
import { claimOf } from '../../driver/job-row';
import { memoryJobDriver } from '../../driver/memory';
import { frozenClock, type FrozenClock } from '../../testing/frozen-clock';
import { recordingLogger, type RecordingLogger } from '../../util/logger';
import { memoryOutboxStore, type MemoryOutboxStore } from '../memory-outbox-store';
import type { OutboxStore } from '../outbox-store';
import { outboxRequest } from '../testing/outbox-store.conformance';
import { outboxRelay } from './outbox-relay';
import type { OutboxRelayOptions } from './relay-options';

const LEASE = 30_000;

interface World {
  clock: FrozenClock;
  store: MemoryOutboxStore;
  driver: JobDriver;
  logger: RecordingLogger;
  published: string[];
  stage(count: number): Promise<EnqueueRequest[]>;
  relay(overrides?: Partial<OutboxRelayOptions>): ReturnType<typeof outboxRelay>;
}

function world(): World {
  const clock = frozenClock();
  const store = memoryOutboxStore({ clock });
  const inner = memoryJobDriver({ clock });
  const published: string[] = [];
  const driver: JobDriver = {
    ...inner,
    enqueue: async (request) => {
      const result = await inner.enqueue(request);
      published.push(request.id);
      return result;
    },
  };
  const logger = recordingLogger();
  return {
    clock,
    store,
    driver,
    logger,
    published,
    async stage(count) {
      const tx = store.begin();
      const staged = Array.from({ length: count }, () => outboxRequest());
      for (const request of staged) await store.stage(request, tx);
      tx.commit();
      return staged;
    },
    relay: (overrides = {}) =>
      outboxRelay({ store, driver, clock, logger, claimLeaseMs: LEASE, ...overrides }),
  };
}

/** A promise the test settles. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Counts claims, to read the loop's timing off the clock. */
function countingClaims(store: OutboxStore, clock: FrozenClock, at: number[]): OutboxStore {
  return {
    ...store,
    claim: (options) => {
      at.push(clock.now());
      return store.claim(options);
    },
  };
}

describe('outboxRelay options', () => {
  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '30s'])(
    'refuses claimLeaseMs %p with X_INVARIANT',
    (claimLeaseMs) => {
      const w = world();
      expect(() => w.relay({ claimLeaseMs: claimLeaseMs as number })).toThrow(
        expect.objectContaining({ code: 'X_INVARIANT' }),
      );
    },
  );

  it('refuses a batch or interval that is not a positive whole number', () => {
    const w = world();
    for (const bad of [{ batch: 0 }, { intervalMs: -5 }, { idlePollMaxMs: 10, intervalMs: 20 }]) {
      expect(() => w.relay(bad)).toThrow(expect.objectContaining({ code: 'X_INVARIANT' }));
    }
  });
});

describe('outboxRelay', () => {
  it('publishes staged rows in order under their own ids, retires them and wakes their queues', async () => {
    const w = world();
    const woken: string[] = [];
    const staged = await w.stage(5);
    const relay = w.relay({ batch: 2, onPublished: (q) => woken.push(q) });
    relay.start();
    await w.clock.flush();
    expect(w.published).toEqual(staged.map((r) => r.id));
    for (const r of staged) expect((await w.driver.get(r.id))?.runId).toBe(r.runId);
    expect(await w.store.retained()).toBe(0);
    expect(woken).toEqual(['outbox-q', 'outbox-q', 'outbox-q']);
    expect(relay.stats()).toMatchObject({ claimed: 5, published: 5, deduped: 0 });
    await relay.stop();
  });

  it('stops the batch at a failed publish and releases the rest at once, then resumes in order', async () => {
    const w = world();
    const staged = await w.stage(4);
    let failOn: string | undefined = staged[1]?.id;
    const flaky: JobDriver = {
      ...w.driver,
      enqueue: async (request) => {
        if (request.id === failOn) {
          failOn = undefined;
          throw new Error('connection reset');
        }
        return w.driver.enqueue(request);
      },
    };
    const relay = w.relay({ driver: flaky, intervalMs: 100 });
    const first = await relay.runOnce();
    expect(first).toMatchObject({ claimed: 4, published: 1, released: 3 });
    expect(w.published).toEqual([staged[0]?.id]);
    // released, not leased: another relay takes them now, and the failed row counts its attempt
    const back = await w.store.claim({ claimant: 'probe', limit: 10, leaseMs: LEASE });
    expect(back.map((r) => [r.id, r.attempts])).toEqual(
      staged.slice(1).map((r, i) => [r.id, i === 0 ? 1 : 0]),
    );
    await w.store.release(
      back.map((r) => r.id),
      'probe',
    );
    expect(w.logger.named('jobs.outbox.publish-failed')[0]?.fields).toMatchObject({
      id: staged[1]?.id,
      error: 'connection reset',
    });
    relay.start();
    await w.clock.flush();
    expect(w.published).toEqual(staged.map((r) => r.id));
    await relay.stop();
  });

  it('logs a pass that throws as jobs.outbox.tick-failed and re-arms after the interval', async () => {
    const w = world();
    await w.stage(2);
    let broken = true;
    const store: OutboxStore = {
      ...w.store,
      claim: (options) =>
        broken ? Promise.reject(new Error('pool exhausted')) : w.store.claim(options),
    };
    const relay = w.relay({ store, intervalMs: 100 });
    relay.start();
    await w.clock.flush();
    expect(w.logger.named('jobs.outbox.tick-failed')).toHaveLength(1);
    broken = false;
    await w.clock.advance(99);
    expect(w.published).toEqual([]);
    await w.clock.advance(1);
    expect(w.published).toHaveLength(2);
    await relay.stop();
  });

  it('backs off while idle, doubling up to idlePollMaxMs; wake() runs a pass now', async () => {
    const w = world();
    const at: number[] = [];
    const start = w.clock.now();
    const relay = w.relay({
      store: countingClaims(w.store, w.clock, at),
      intervalMs: 100,
      idlePollMaxMs: 700,
    });
    relay.start();
    await w.clock.advance(2_100);
    expect(at.map((t) => t - start)).toEqual([0, 100, 300, 700, 1_400, 2_100]);
    const staged = await w.stage(1);
    relay.wake();
    await w.clock.flush();
    expect(w.published).toEqual([staged[0]?.id]);
    // a pass that moved rows resets the wait to the interval: claim again now (empty), then 100 ms later
    expect(at.slice(6).map((t) => t - start)).toEqual([2_100, 2_100]);
    await w.clock.advance(100);
    expect(at.slice(8).map((t) => t - start)).toEqual([2_200]);
    await relay.stop();
  });

  it('runs another pass straight after the one in flight when woken during it', async () => {
    const w = world();
    const [first] = await w.stage(1);
    const hold = gate();
    const relay = w.relay({ faults: { afterPublish: () => hold.promise } });
    relay.start();
    await w.clock.flush();
    expect(w.published).toEqual([first?.id]);
    const [second] = await w.stage(1);
    relay.wake(); // lands while the pass is held between publish and retire
    hold.open();
    await w.clock.flush();
    expect(w.published).toEqual([first?.id, second?.id]);
    await relay.stop();
  });

  it('joins the pass in flight on stop(): it finishes the row in hand, retires it, releases the rest', async () => {
    const w = world();
    const staged = await w.stage(3);
    const publishing = gate();
    const slow: JobDriver = {
      ...w.driver,
      enqueue: async (request) => {
        await publishing.promise;
        return w.driver.enqueue(request);
      },
    };
    const relay = w.relay({ driver: slow });
    relay.start();
    await w.clock.flush();
    let stopped = false;
    const stopping = relay.stop().then(() => {
      stopped = true;
    });
    await w.clock.flush();
    expect(stopped).toBe(false);
    publishing.open();
    await stopping;
    expect(w.published).toEqual([staged[0]?.id]);
    expect(await w.store.retained()).toBe(2);
    const back = await w.store.claim({ claimant: 'next', limit: 10, leaseMs: LEASE });
    expect(back.map((r) => r.id)).toEqual(staged.slice(1).map((r) => r.id));
    expect(w.logger.named('jobs.outbox.relay-stopped')).toHaveLength(1);
  });

  it('binds a stop deadline late: a stop(deadline) bounds a manual stop() already waiting', async () => {
    const w = world();
    await w.stage(1);
    const never = gate();
    const relay = w.relay({ faults: { afterPublish: () => never.promise } });
    relay.start();
    await w.clock.flush();
    const settled: string[] = [];
    const manual = relay.stop().then(() => settled.push('manual'));
    const bounded = relay.stop(w.clock.now() + 1_000).then(() => settled.push('bounded'));
    const earlier = relay.stop(w.clock.now() + 500).then(() => settled.push('earlier'));
    await w.clock.advance(499);
    expect(settled).toEqual([]);
    await w.clock.advance(1);
    await Promise.all([manual, bounded, earlier]);
    expect(settled.sort()).toEqual(['bounded', 'earlier', 'manual']);
    expect(w.logger.named('jobs.outbox.drain-abandoned')).toHaveLength(1);
    never.open();
  });

  it('republishes after a relay died between publish and retire: the job stays one row, even finished', async () => {
    const w = world();
    const [request] = await w.stage(1);
    const doomed = w.relay({
      faults: {
        afterPublish: () => {
          throw new Error('SIGKILL');
        },
      },
    });
    await expect(doomed.runOnce()).rejects.toThrow('SIGKILL');
    expect(w.published).toEqual([request?.id]);
    // the job runs to done before anyone republishes
    const [claimed] = await w.driver.claim({
      workerId: 'w',
      slots: [{ queue: 'outbox-q', limit: 1 }],
      visibilityTimeoutMs: 10_000,
    });
    expect(await w.driver.ack(request!.id, claimOf(claimed!))).toBe(true);

    const next = w.relay();
    expect(await next.runOnce()).toMatchObject({ claimed: 0 }); // leased to the dead relay
    await w.clock.advance(LEASE);
    expect(await next.runOnce()).toMatchObject({ claimed: 1, published: 1, deduped: 1 });
    expect(w.published).toEqual([request?.id, request?.id]);
    const stats = await w.driver.stats();
    expect(stats.map((s) => [s.ready, s.running, s.done])).toEqual([[0, 0, 1]]);
    expect(await w.store.retained()).toBe(0);
  });

  it('retires a staged request whose key a live job holds under onConflict error, with a warning', async () => {
    const w = world();
    const holder = outboxRequest({ idempotencyKey: 'shared' });
    await w.driver.enqueue(holder);
    const strict = outboxRequest({ idempotencyKey: 'shared', onConflict: 'error' });
    await w.store.stage(strict);
    const [after] = await w.stage(1);
    const relay = w.relay();
    expect(await relay.runOnce()).toMatchObject({ claimed: 2, published: 2, deduped: 1 });
    expect(await w.driver.get(strict.id)).toBeUndefined();
    expect((await w.driver.get(after!.id))?.state).toBe('ready');
    expect(w.logger.named('jobs.outbox.duplicate')[0]?.fields).toMatchObject({ id: strict.id });
  });
});
