import { job } from '../../declare/job';
import { prepareEnqueue } from '../../declare/enqueue';
import { t } from '../../schema';
import { memoryJobDriver } from '../../driver/memory/memory-driver';
import type { JobDriver } from '../../driver/job-driver';
import { frozenClock, type FrozenClock } from '../../testing/frozen-clock';
import { memoryOutboxStore } from '../../outbox/memory-outbox-store';
import { outboxRequest } from '../../outbox/testing/outbox-store.conformance';
import { outboxRelay } from '../../outbox/relay/outbox-relay';
import type { WorkerStats } from '../../worker/worker-options';
import type { JobScheduler } from '../../scheduler/job-scheduler';
import { DriverUnavailableError } from '../../errors/runtime-errors';
import { QueueStatsCache } from '../metrics/queue-stats.cache';
import type { JobsRole } from '../jobs.options';
import { resolveJobsHealthOptions, type JobsHealthOptions } from './jobs-health.options';
import { probeLive, probeReady, type JobsHealthSources } from './jobs-health.probes';

const idle: WorkerStats = {
  claimed: 0,
  completed: 0,
  retried: 0,
  deadLettered: 0,
  dropped: 0,
  suspended: 0,
  interrupted: 0,
  refused: 0,
  deferred: 0,
  inFlight: 0,
  claims: 0,
  leasesLost: 0,
  lastPassAt: 0,
  wakeLive: false,
  slots: 4,
};

function sources(
  clock: FrozenClock,
  over: Partial<JobsHealthSources> & { driver?: JobDriver } = {},
): JobsHealthSources {
  const driver = over.driver ?? memoryJobDriver({ clock });
  return {
    driver,
    clock,
    roles: new Set<JobsRole>(['worker']),
    wakes: false,
    stats: new QueueStatsCache(driver, clock),
    worker: () => ({ ...idle, lastPassAt: clock.now() }),
    scheduler: () => undefined,
    relay: () => undefined,
    outboxBacklog: () => undefined,
    serves: () => true,
    ...over,
  };
}

const opts = (o: JobsHealthOptions = {}) => resolveJobsHealthOptions(o);

describe('health probes', () => {
  it('live: a claim loop silent past loopStaleMs with a free slot is down; a full worker is alive', () => {
    const clock = frozenClock();
    const at = clock.now();
    const stale = { ...idle, lastPassAt: at - 60_001 };
    expect(probeLive(sources(clock, { worker: () => stale }), opts()).failing).toEqual(['worker']);
    expect(
      probeLive(sources(clock, { worker: () => ({ ...stale, inFlight: 4 }) }), opts()).failing,
    ).toEqual([]);
    // a worker with no slot at all is not full: its silence still counts
    expect(
      probeLive(sources(clock, { worker: () => ({ ...stale, slots: 0 }) }), opts()).failing,
    ).toEqual(['worker']);
    expect(
      probeLive(sources(clock, { worker: () => ({ ...idle, lastPassAt: at - 60_000 }) }), opts())
        .failing,
    ).toEqual([]);
  });

  it('ready: a ping that does not answer within pingTimeoutMs is the driver down', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const hung: JobDriver = { ...driver, ping: () => new Promise<void>(() => undefined) };
    const probe = probeReady(sources(clock, { driver: hung }), opts({ pingTimeoutMs: 500 }));
    await clock.advance(500);
    const report = await probe;
    expect(report.failing).toEqual(['driver']);
    expect(report.checks['driver']).toMatchObject({
      status: 'down',
      error: 'no answer within 500 ms',
    });
  });

  it('ready: a rejected ping names its error; a worker role not running is down, one with nothing to serve is not', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const broken: JobDriver = { ...driver, ping: () => Promise.reject(new Error('refused')) };
    const report = await probeReady(
      sources(clock, { driver: broken, worker: () => undefined }),
      opts(),
    );
    expect(report.failing).toEqual(['driver', 'worker']);
    expect(report.checks['driver']).toMatchObject({ error: 'refused' });
    const unserved = await probeReady(
      sources(clock, { worker: () => undefined, serves: () => false }),
      opts(),
    );
    expect(unserved.failing).toEqual([]);
  });

  it('ready: a coded ping failure is named by its code, as the README shows (X_DRIVER_UNAVAILABLE: …)', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const outage = new DriverUnavailableError('PostgreSQL is out of reach (connect ECONNREFUSED)');
    const down: JobDriver = { ...driver, ping: () => Promise.reject(outage) };
    const report = await probeReady(sources(clock, { driver: down }), opts());
    expect(report.failing).toEqual(['driver']);
    expect(report.checks['driver']).toMatchObject({
      status: 'down',
      error: expect.stringMatching(/^X_DRIVER_UNAVAILABLE: PostgreSQL is out of reach/) as unknown,
    });
  });

  it('ready: declared queue thresholds whose stats cannot be read are unknown (degraded), never a second failing check beside the driver', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const refused = new DriverUnavailableError('PostgreSQL is out of reach');
    const down: JobDriver = {
      ...driver,
      ping: () => Promise.reject(refused),
      stats: () => Promise.reject(refused),
    };
    const report = await probeReady(
      sources(clock, { driver: down }),
      opts({ queues: { payments: { maxOldestReadyMs: 300_000, maxDead: 0 } } }),
    );
    expect(report.failing).toEqual(['driver']);
    expect(report.checks['queues']).toBeUndefined();
    expect(report.checks['queue:payments']).toEqual({
      status: 'degraded',
      error: expect.stringMatching(/^stats unknown: X_DRIVER_UNAVAILABLE: /) as unknown,
    });
  });

  it('ready: a worker whose cross-process wake is unproven is degraded, not down', async () => {
    const clock = frozenClock();
    const report = await probeReady(sources(clock, { wakes: true }), opts());
    expect(report.failing).toEqual([]);
    expect(report.checks['worker']).toMatchObject({ status: 'degraded', wake: 'polling' });
    // a backend with no cross-process wake (memory) has only the in-process one: nothing to prove
    const inProcess = await probeReady(sources(clock, { wakes: false }), opts());
    expect(inProcess.checks['worker']).toMatchObject({ status: 'up', wake: 'in-process' });
  });

  it('ready: a scheduler role whose scheduler is not running (stopping, stopped) is down', async () => {
    const clock = frozenClock();
    const roles = new Set<JobsRole>(['scheduler']);
    const scheduler = (status: JobScheduler['status']): JobScheduler =>
      ({ status, isLeader: () => true }) as Pick<
        JobScheduler,
        'status' | 'isLeader'
      > as JobScheduler;
    const running = await probeReady(
      sources(clock, { roles, scheduler: () => scheduler('running') }),
      opts(),
    );
    expect(running.checks['scheduler']).toEqual({ status: 'up', leading: true });
    for (const status of ['stopping', 'stopped'] as const) {
      const report = await probeReady(
        sources(clock, { roles, scheduler: () => scheduler(status) }),
        opts(),
      );
      expect(report.failing).toEqual(['scheduler']);
    }
  });

  it('ready: per-queue thresholds on the oldest ready age and the dead count, read from the stats', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const payment = job({
      name: 'health.payment',
      queue: 'payments',
      input: t.object({ n: t.number.int() }),
      idempotencyKey: ({ n }) => `payment:${n}`,
      tenant: 'none',
      run: () => undefined,
    });
    await driver.enqueue(await prepareEnqueue(payment, { n: 1 }, {}, undefined, clock.now()));
    const s = sources(clock, { driver });
    const o = opts({ queues: { payments: { maxOldestReadyMs: 300_000 }, mail: { maxDead: 0 } } });
    await clock.advance(300_000);
    // the stats are read at most once a second: the bound itself is still within it
    expect((await probeReady(s, o)).failing).toEqual([]);
    await clock.advance(1_001);
    const report = await probeReady(s, o);
    expect(report.failing).toEqual(['queue:payments']);
    expect(report.checks['queue:payments']).toMatchObject({
      status: 'down',
      oldestReadyMs: 301_001,
    });
    expect(report.checks['queue:mail']).toMatchObject({ status: 'up', dead: 0 });
  });

  it('ready: the outbox backlog older than outbox.maxLagMs is down, named outbox', async () => {
    const clock = frozenClock();
    const store = memoryOutboxStore({ clock });
    const s = sources(clock, { outboxBacklog: () => store.backlog() });
    const o = opts({ outbox: { maxLagMs: 60_000 } });
    expect((await probeReady(s, o)).checks['outbox']).toEqual({
      status: 'up',
      backlog: 0,
      lagMs: 0,
    });
    await store.stage(outboxRequest());
    await clock.advance(60_000);
    expect((await probeReady(s, o)).failing).toEqual([]);
    await clock.advance(1);
    const report = await probeReady(s, o);
    expect(report.failing).toEqual(['outbox']);
    expect(report.checks['outbox']).toEqual({
      status: 'down',
      backlog: 1,
      lagMs: 60_001,
      error: 'the oldest staged row waited 60001 ms (at most 60000)',
    });
    // declared, a process without OutboxModule cannot answer it; false checks it nowhere
    const without = await probeReady(sources(clock), o);
    expect(without.checks['outbox']).toMatchObject({ status: 'down', error: /OutboxModule/ });
    expect((await probeReady(s, opts({ outbox: false }))).checks['outbox']).toBeUndefined();
    // a backlog that cannot be read is unknown (degraded), not a second failing check beside the driver's
    const unread = sources(clock, { outboxBacklog: () => Promise.reject(new Error('refused')) });
    const outage = await probeReady(unread, o);
    expect(outage.failing).toEqual([]);
    expect(outage.checks['outbox']).toEqual({
      status: 'degraded',
      error: 'backlog unknown: refused',
    });
  });

  it('ready: left out, the outbox bound is checked (300 s) only in a process holding the relay role', async () => {
    const clock = frozenClock();
    const store = memoryOutboxStore({ clock });
    const driver = memoryJobDriver({ clock });
    await store.stage(outboxRequest());
    await clock.advance(300_001);
    const web = sources(clock, { driver, outboxBacklog: () => store.backlog() });
    expect((await probeReady(web, opts())).checks['outbox']).toBeUndefined();
    const relay = outboxRelay({ store: memoryOutboxStore({ clock }), driver, clock });
    const relaying = sources(clock, {
      driver,
      roles: new Set<JobsRole>(['relay']),
      relay: () => relay,
      outboxBacklog: () => store.backlog(),
    });
    const report = await probeReady(relaying, opts());
    expect(report.failing).toEqual(['outbox']);
    expect(report.checks['outbox']).toMatchObject({ lagMs: 300_001, backlog: 1 });
  });

  it('refuses a bound that is not a whole number with X_INVARIANT', () => {
    expect(() => opts({ pingTimeoutMs: 0 })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
    expect(() => opts({ outbox: { maxLagMs: 0.5 } })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
    expect(() => opts({ queues: { q: { maxDead: -1 } } })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
  });

  it('refuses options of the wrong shape with X_INVARIANT naming the field, where a null threshold was a TypeError', () => {
    const shapes: [unknown, string][] = [
      [{ queues: { payments: null } }, 'queues.payments'],
      [{ queues: ['payments'] }, 'queues'],
      [{ outbox: 300_000 }, 'outbox'],
      [{ path: 9464 }, 'path'],
      [null, 'the options'],
    ];
    for (const [options, field] of shapes)
      expect(() => opts(options as JobsHealthOptions)).toThrow(
        expect.objectContaining({ code: 'X_INVARIANT', message: expect.stringContaining(field) }),
      );
    expect(() => opts({ path: 'health', outbox: false, queues: {} })).not.toThrow();
  });
});
