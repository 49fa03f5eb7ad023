import type { EnqueueRequest, EnqueueResult, JobDriver } from '../../driver/job-driver';
import { memoryJobDriver } from '../../driver/memory';
import { JobsError } from '../../errors/jobs-error';
import { frozenClock, type FrozenClock } from '../../testing/frozen-clock';
import { recordingLogger, type RecordingLogger } from '../../util/logger';
import { memoryOutboxStore, type MemoryOutboxStore } from '../memory-outbox-store';
import { outboxRequest } from '../testing/outbox-store.conformance';
import { outboxRelay } from './outbox-relay';
import type { OutboxRelayOptions } from './relay-options';

const LEASE = 30_000;

interface World {
  clock: FrozenClock;
  store: MemoryOutboxStore;
  inner: JobDriver;
  logger: RecordingLogger;
  /** A relay publishing through `publish` (default: the memory driver). */
  relay(
    publish?: (request: EnqueueRequest) => Promise<EnqueueResult>,
    overrides?: Partial<OutboxRelayOptions>,
  ): ReturnType<typeof outboxRelay>;
}

function world(): World {
  const clock = frozenClock();
  const store = memoryOutboxStore({ clock });
  const inner = memoryJobDriver({ clock });
  const logger = recordingLogger();
  return {
    clock,
    store,
    inner,
    logger,
    relay: (publish = (request) => inner.enqueue(request), overrides = {}) =>
      outboxRelay({
        store,
        driver: { ...inner, enqueue: publish },
        clock,
        logger,
        claimant: 'relay-a',
        claimLeaseMs: LEASE,
        ...overrides,
      }),
  };
}

/** What a driver throws when the store refuses the row itself: charged to the row. */
const refused = (request: EnqueueRequest): JobsError =>
  new JobsError('X_VALUE_INVALID', `the store refuses ${request.id}`);

describe('relay pass: how a failed publish is settled', () => {
  it.each(['40001', '53300', '57P01', '25006'])(
    'a publish failing with SQLSTATE %s is an outage: the pass stops, no row is charged',
    async (code) => {
      const w = world();
      const request = outboxRequest();
      await w.store.stage(request);
      const relay = w.relay(
        () => Promise.reject(Object.assign(new Error('the server refused'), { code })),
        { maxPublishAttempts: 1 },
      );
      expect(await relay.runOnce()).toMatchObject({ claimed: 1, quarantined: 0, outage: true });
      expect(await w.store.quarantined()).toEqual([]);
      const [back] = await w.store.claim({ claimant: 'probe', limit: 10, leaseMs: LEASE });
      expect(back).toMatchObject({ id: request.id, attempts: 0 });
    },
  );

  it('reports the first row that will be tried again as the pass failure', async () => {
    const w = world();
    const [first, second] = [outboxRequest(), outboxRequest()];
    await w.store.stage(first);
    await w.store.stage(second);
    const relay = w.relay((request) => Promise.reject(refused(request)));
    const pass = await relay.runOnce();
    expect(pass).toMatchObject({ claimed: 2, published: 0, released: 2, outage: false });
    expect(pass.failure).toEqual({
      id: first.id,
      error: `X_VALUE_INVALID: the store refuses ${first.id}`,
    });
  });

  it('wakes no queue for a publish that met its job already (a republish)', async () => {
    const w = world();
    const request = outboxRequest();
    await w.inner.enqueue(request);
    await w.store.stage(request);
    const woken: string[] = [];
    const relay = w.relay(undefined, { onPublished: (queue) => woken.push(queue) });
    expect(await relay.runOnce()).toMatchObject({ published: 1, deduped: 1 });
    expect(woken).toEqual([]);
    expect(await w.store.retained()).toBe(0);
  });

  it('a last try whose row another relay took meanwhile quarantines nothing and reports nothing', async () => {
    const w = world();
    const request = outboxRequest();
    await w.store.stage(request);
    // the publish stalls past the lease; relay-b takes the row before relay-a's try fails
    const relay = w.relay(
      async (r) => {
        await w.clock.advance(LEASE);
        await w.store.claim({ claimant: 'relay-b', limit: 10, leaseMs: LEASE });
        throw refused(r);
      },
      { maxPublishAttempts: 1 },
    );
    expect(await relay.runOnce()).toMatchObject({ claimed: 1, published: 0, quarantined: 0 });
    expect(relay.stats().quarantined).toBe(0);
    expect(w.logger.named('jobs.outbox.quarantined')).toEqual([]);
    expect(await w.store.quarantined()).toEqual([]);
    // the row is still relay-b's to publish
    expect(await w.store.markPublished([request.id], 'relay-b')).toBe(1);
  });
});
