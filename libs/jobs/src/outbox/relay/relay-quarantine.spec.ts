import type { EnqueueRequest, JobDriver } from '../../driver/job-driver';
import { memoryJobDriver } from '../../driver/memory';
import { DriverUnavailableError } from '../../errors/runtime-errors';
import { JobsError } from '../../errors/jobs-error';
import { frozenClock, type FrozenClock } from '../../testing/frozen-clock';
import { recordingLogger, type RecordingLogger } from '../../util/logger';
import { memoryOutboxStore, type MemoryOutboxStore } from '../memory-outbox-store';
import { outboxRequest } from '../testing/outbox-store.conformance';
import { outboxRelay } from './outbox-relay';
import { OUTBOX_PUBLISH_ATTEMPTS, type OutboxRelayOptions } from './relay-options';

const INTERVAL = 200;

interface World {
  clock: FrozenClock;
  store: MemoryOutboxStore;
  driver: JobDriver;
  logger: RecordingLogger;
  /** Every publish tried, in order, by job name. */
  tried: string[];
  /** Names the publish target refuses, as a driver that cannot store the row would. */
  refuse: Set<string>;
  /** While set, every publish fails as the database out of reach. */
  down: { now: boolean };
  commit(...names: string[]): Promise<EnqueueRequest[]>;
  relay(overrides?: Partial<OutboxRelayOptions>): ReturnType<typeof outboxRelay>;
  jobs(): Promise<string[]>;
}

function world(): World {
  const clock = frozenClock();
  const store = memoryOutboxStore({ clock });
  const inner = memoryJobDriver({ clock });
  const tried: string[] = [];
  const refuse = new Set<string>();
  const down = { now: false };
  const staged: EnqueueRequest[] = [];
  const driver: JobDriver = {
    ...inner,
    enqueue: async (request) => {
      tried.push(request.name);
      if (down.now) throw new DriverUnavailableError('the database is out of reach');
      if (refuse.has(request.name)) {
        throw new JobsError('X_VALUE_INVALID', `the store refuses ${request.name}`);
      }
      return inner.enqueue(request);
    },
  };
  const logger = recordingLogger();
  return {
    clock,
    store,
    driver,
    logger,
    tried,
    refuse,
    down,
    /** Stages one request per name in ONE transaction and commits it. */
    async commit(...names) {
      const tx = store.begin();
      const requests = names.map((name) => outboxRequest({ name }));
      for (const request of requests) await store.stage(request, tx);
      tx.commit();
      staged.push(...requests);
      return requests;
    },
    relay: (overrides = {}) =>
      outboxRelay({ store, driver, clock, logger, intervalMs: INTERVAL, ...overrides }),
    async jobs() {
      const names: string[] = [];
      for (const r of staged) if ((await inner.get(r.id)) !== undefined) names.push(r.name);
      return names;
    },
  };
}

describe('outboxRelay: no single row stops the flow of others', () => {
  it('one unpublishable row and 5 good ones committed after it: the 5 become jobs at once, the bad one is quarantined', async () => {
    const w = world();
    w.refuse.add('poison');
    const [poison] = await w.commit('poison');
    for (let i = 1; i <= 5; i++) await w.commit(`good-${i}`);
    const relay = w.relay();
    relay.start();

    // the first pass, at the relay's start time: no clock moved
    await w.clock.flush();
    expect(await w.jobs()).toEqual(['good-1', 'good-2', 'good-3', 'good-4', 'good-5']);
    expect(await w.store.quarantined()).toEqual([]);

    // retried once per interval, 5 tries in all, then out of the claim
    await w.clock.advance(INTERVAL * (OUTBOX_PUBLISH_ATTEMPTS - 1));
    expect(w.tried.filter((n) => n === 'poison')).toHaveLength(OUTBOX_PUBLISH_ATTEMPTS);
    const [quarantined, ...none] = await w.store.quarantined();
    expect(none).toEqual([]);
    expect(quarantined).toMatchObject({
      id: poison?.id,
      code: 'X_OUTBOX_QUARANTINED',
      attempts: OUTBOX_PUBLISH_ATTEMPTS,
      error: 'X_VALUE_INVALID: the store refuses poison',
    });
    expect(w.logger.named('jobs.outbox.quarantined')).toEqual([
      {
        level: 'error',
        event: 'jobs.outbox.quarantined',
        fields: expect.objectContaining({
          code: 'X_OUTBOX_QUARANTINED',
          id: poison?.id,
          job: 'poison',
          attempts: OUTBOX_PUBLISH_ATTEMPTS,
          error: 'X_VALUE_INVALID: the store refuses poison',
          heldBehind: [],
        }),
      },
    ]);
    expect(relay.stats()).toMatchObject({ published: 5, quarantined: 1 });
    expect(await w.store.retained()).toBe(0);

    // nothing tries it again, and new rows still flow
    await w.clock.advance(10_000);
    expect(w.tried.filter((n) => n === 'poison')).toHaveLength(OUTBOX_PUBLISH_ATTEMPTS);
    await w.commit('later');
    relay.wake();
    await w.clock.flush();
    expect(await w.jobs()).toContain('later');
    await relay.stop();
  });

  it('while a row is retried, the rows after it in ITS transaction wait; other transactions flow', async () => {
    const w = world();
    w.refuse.add('createInvoice');
    await w.commit('createInvoice', 'chargeCard');
    await w.commit('unrelated');
    const relay = w.relay();
    relay.start();
    await w.clock.flush();
    await w.clock.advance(INTERVAL); // a second failed try
    expect(await w.jobs()).toEqual(['unrelated']);
    expect(w.tried).not.toContain('chargeCard');

    w.refuse.delete('createInvoice'); // the cause is fixed before the tries run out
    await w.clock.advance(INTERVAL);
    expect(await w.jobs()).toEqual(['createInvoice', 'chargeCard', 'unrelated']);
    expect(w.tried.filter((n) => n !== 'createInvoice')).toEqual(['unrelated', 'chargeCard']);
    expect(await w.store.quarantined()).toEqual([]);
    await relay.stop();
  });

  it('once a row is quarantined, the rows after it in its transaction are held with it, never published alone', async () => {
    const w = world();
    w.refuse.add('createInvoice');
    const [invoice, charge, receipt] = await w.commit('createInvoice', 'chargeCard', 'receipt');
    const relay = w.relay({ maxPublishAttempts: 2 });
    relay.start();
    await w.clock.flush();
    await w.clock.advance(INTERVAL);
    expect(w.tried).toEqual(['createInvoice', 'createInvoice']);
    const listed = await w.store.quarantined();
    expect(listed.map((q) => [q.id, q.code])).toEqual([
      [invoice?.id, 'X_OUTBOX_QUARANTINED'],
      [charge?.id, 'X_OUTBOX_HELD_BEHIND'],
      [receipt?.id, 'X_OUTBOX_HELD_BEHIND'],
    ]);
    expect(w.logger.named('jobs.outbox.quarantined')[0]?.fields).toMatchObject({
      id: invoice?.id,
      heldBehind: [charge?.id, receipt?.id],
    });
    await w.clock.advance(10_000);
    expect(await w.jobs()).toEqual([]);

    // the operator fixes the cause and restores the transaction: it publishes, in order
    w.refuse.delete('createInvoice');
    expect(await w.store.restore(listed.map((q) => q.id))).toBe(3);
    relay.wake();
    await w.clock.flush();
    expect(await w.jobs()).toEqual(['createInvoice', 'chargeCard', 'receipt']);
    expect(w.tried.slice(2)).toEqual(['createInvoice', 'chargeCard', 'receipt']);
    await relay.stop();
  });

  it('a database out of reach stops the pass and is never charged to a row', async () => {
    const w = world();
    w.down.now = true;
    await w.commit('a');
    await w.commit('b');
    const relay = w.relay({ maxPublishAttempts: 2 });
    relay.start();
    await w.clock.flush();
    await w.clock.advance(INTERVAL * 10);
    // one try per pass, the first row only: the rest of the batch is not hammered, and the passes back off (the
    // interval, then twice as long each time: 0, 200, 600, 1,400 ms)
    expect(w.tried).toEqual(Array.from({ length: 4 }, () => 'a'));
    expect(await w.store.quarantined()).toEqual([]);
    expect(w.logger.named('jobs.outbox.publish-failed')[0]?.fields).toMatchObject({
      transient: true,
    });
    w.down.now = false;
    // the next pass, 1,600 ms after the last, publishes both
    await w.clock.advance(INTERVAL * 5);
    expect(await w.jobs()).toEqual(['a', 'b']);
    await relay.stop();
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses maxPublishAttempts %p with X_INVARIANT', (bad) => {
    expect(() => world().relay({ maxPublishAttempts: bad })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
  });
});
