import { Client } from 'pg';
import {
  job,
  JobRegistry,
  jobWorker,
  MAX_QUEUE_NAME_LENGTH,
  recordingLogger,
  t,
} from '@ultimat3/jobs';
import { createTestDatabase, JOB_TABLES, withDatabase } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { until } from '../../../../test/until';
import { postgresJobDriver } from '../driver/pg-driver';
import { startQueueWake, type QueueWake } from './queue-wake';
import { WAKE_CHANNEL, WAKE_SWEEP_CHANNEL, WAKE_SWEEP_MS } from './wake-session';

describe('startQueueWake (one LISTEN session per process)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });
  let wake: QueueWake | undefined;
  const sessions: Client[] = [];

  afterEach(async () => {
    await wake?.stop();
    wake = undefined;
    for (const s of sessions.splice(0)) await s.end().catch(() => undefined);
  });

  const dial =
    (url = db.url) =>
    () => {
      const client = new Client({ connectionString: url });
      sessions.push(client);
      return client;
    };

  const recorder = () => {
    const woken: string[] = [];
    const liveness: boolean[] = [];
    return {
      woken,
      liveness,
      target: {
        signalEnqueued: (queue: string) => void woken.push(queue),
        setWakeLive: (live: boolean) => void liveness.push(live),
      },
    };
  };

  it('proves itself with a probe, then hears an enqueue committed on another connection', async () => {
    const logger = recordingLogger();
    const r = recorder();
    wake = startQueueWake({ listener: dial(), executor: db.executor, target: r.target, logger });
    expect(await wake.ready()).toBe(true);
    expect(wake.live()).toBe(true);
    expect(r.liveness).toEqual([true]);
    expect(logger.named('jobs.wake.live')).toHaveLength(1);
    // the probe itself is nobody's queue
    expect(r.woken).toEqual([]);

    await postgresJobDriver({ executor: db.executor }).enqueue(request({ queue: 'mail' }));
    await until(() => r.woken.includes('mail'));
    expect(r.woken).toEqual(['mail']);
  });

  it('takes a pg.Client instance, connected or not, as the session', async () => {
    const client = new Client({ connectionString: db.url });
    sessions.push(client);
    await client.connect();
    const r = recorder();
    wake = startQueueWake({ listener: client, executor: db.executor, target: r.target });
    expect(await wake.ready()).toBe(true);
    await db.pool.query('select pg_notify($1, $2)', [WAKE_CHANNEL, 'reports']);
    await until(() => r.woken.includes('reports'));
  });

  it('hears the sweep channel beside the wake: a sweep alone where the target takes one, else a wake', async () => {
    const r = recorder();
    const swept: [string, number][] = [];
    wake = startQueueWake({
      listener: dial(),
      executor: db.executor,
      target: { ...r.target, signalSweep: (queue, after) => void swept.push([queue, after]) },
    });
    expect(await wake.ready()).toBe(true);
    await db.pool.query('select pg_notify($1, $2)', [WAKE_SWEEP_CHANNEL, 'mail']);
    await db.pool.query('select pg_notify($1, $2)', [WAKE_CHANNEL, 'reports']);
    await until(() => r.woken.includes('reports'));
    expect(swept).toEqual([['mail', WAKE_SWEEP_MS]]);
    expect(r.woken).toEqual(['reports']);
    await wake.stop();

    // a target with no sweep of its own is woken: a pass now as well, which costs a claim and loses nothing
    const plain = recorder();
    wake = startQueueWake({ listener: dial(), executor: db.executor, target: plain.target });
    expect(await wake.ready()).toBe(true);
    await db.pool.query('select pg_notify($1, $2)', [WAKE_SWEEP_CHANNEL, 'mail']);
    await until(() => plain.woken.includes('mail'));
  });

  it('wakes a queue named like a probe: only a payload longer than any queue name is one', async () => {
    const r = recorder();
    wake = startQueueWake({ listener: dial(), executor: db.executor, target: r.target });
    expect(await wake.ready()).toBe(true);
    const probeLike = `probe/${'p'.repeat(MAX_QUEUE_NAME_LENGTH - 'probe/'.length)}`;
    // another process's probe, then a wake of each queue
    await db.pool.query('select pg_notify($1, $2)', [WAKE_CHANNEL, `${probeLike}x`]);
    await postgresJobDriver({ executor: db.executor }).enqueue(request({ queue: 'probe/reports' }));
    await db.pool.query('select pg_notify($1, $2)', [WAKE_CHANNEL, probeLike]);
    await until(() => r.woken.includes(probeLike));
    expect(r.woken).toEqual(['probe/reports', probeLike]);
  });

  it('listens on no sweep channel beside another channel (as the outbox relay does)', async () => {
    const heard: string[] = [];
    wake = startQueueWake({
      listener: dial(),
      executor: db.executor,
      channel: 'spec_relay_wake',
      onWake: (payload) => void heard.push(payload),
    });
    expect(await wake.ready()).toBe(true);
    await db.pool.query('select pg_notify($1, $2)', [WAKE_SWEEP_CHANNEL, 'mail']);
    await db.pool.query('select pg_notify($1, $2)', ['spec_relay_wake', 'relay']);
    await until(() => heard.includes('relay'));
    expect(heard).toEqual(['relay']);
  });

  it('reports jobs.wake.unverified once, with the fix, when the probe never comes back', async () => {
    // a session on another database hears nothing the pool sends: what a transaction-pooling proxy looks like
    const other = await createTestDatabase({ migrate: false });
    try {
      const logger = recordingLogger();
      const r = recorder();
      wake = startQueueWake({
        listener: dial(withDatabase(db.url, other.name)),
        executor: db.executor,
        target: r.target,
        logger,
        probeTimeoutMs: 200,
      });
      expect(await wake.ready()).toBe(false);
      expect(wake.live()).toBe(false);
      expect(r.liveness).toEqual([]);
      const [warning] = logger.named('jobs.wake.unverified');
      expect(logger.named('jobs.wake.unverified')).toHaveLength(1);
      expect(String(warning?.fields.fix)).toMatch(/session-pooled/);
      expect(logger.named('jobs.wake.live')).toHaveLength(0);
      await wake.stop();
      wake = undefined;
    } finally {
      for (const s of sessions.splice(0)) await s.end().catch(() => undefined);
      await other.drop();
    }
  });

  it('ends a session its factory answers only after the wake was stopped: no LISTEN outlives the stop', async () => {
    let answer: (client: Client) => void = () => undefined;
    const dialled = new Promise<Client>((resolve) => (answer = resolve));
    const r = recorder();
    wake = startQueueWake({ listener: () => dialled, executor: db.executor, target: r.target });
    await wake.stop();
    expect(await wake.ready()).toBe(false);

    const late = new Client({ connectionString: db.url });
    sessions.push(late);
    await late.connect();
    let ended = false;
    late.once('end', () => (ended = true));
    answer(late);
    await until(() => ended);
    expect(r.woken).toEqual([]);
  });

  it('re-dials when its backend is terminated, and is proven live again', async () => {
    const logger = recordingLogger();
    const r = recorder();
    wake = startQueueWake({
      listener: dial(),
      executor: db.executor,
      target: r.target,
      logger,
      redialMs: 50,
    });
    expect(await wake.ready()).toBe(true);
    const pid = (sessions[0] as unknown as { processID: number }).processID;
    await db.pool.query('select pg_terminate_backend($1)', [pid]);
    await until(() => r.liveness.length >= 3);
    expect(r.liveness).toEqual([true, false, true]);
    expect(logger.named('jobs.wake.lost')).toHaveLength(1);
    expect(logger.named('jobs.wake.live')).toHaveLength(2);
    expect(sessions).toHaveLength(2);

    await postgresJobDriver({ executor: db.executor }).enqueue(request({ queue: 'after' }));
    await until(() => r.woken.includes('after'));
  });

  it('re-dials a pg.Client instance by building a new one from its parameters', async () => {
    const client = new Client({ connectionString: db.url });
    sessions.push(client);
    const r = recorder();
    wake = startQueueWake({
      listener: client,
      executor: db.executor,
      target: r.target,
      redialMs: 50,
    });
    expect(await wake.ready()).toBe(true);
    const { rows } = await db.pool.query<{ pid: number }>(
      `select pid from pg_stat_activity where datname = current_database() and query ilike 'listen%'`,
    );
    expect(rows).toHaveLength(1);
    await db.pool.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
    await until(() => r.liveness.length >= 3);
    await db.pool.query('select pg_notify($1, $2)', [WAKE_CHANNEL, 'back']);
    await until(() => r.woken.includes('back'));
  });

  it('wakes an idle worker at its 5 s ceiling: a job another connection enqueues starts at once', async () => {
    const started: number[] = [];
    const handle = job({
      name: 'wake.ping',
      queue: 'ping',
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => void started.push(Date.now()),
    });
    const registry = new JobRegistry();
    registry.register(handle);
    const driver = postgresJobDriver({ executor: db.executor });
    const worker = jobWorker({ driver, registry, concurrency: 2 });
    wake = startQueueWake({ listener: dial(), executor: db.executor, target: worker });
    expect(await wake.ready()).toBe(true);
    await worker.start();
    try {
      // let the idle wait grow well past the floor
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const before = worker.stats().claims;
      const at = Date.now();
      await postgresJobDriver({ executor: db.executor }).enqueue(
        request({ name: 'wake.ping', queue: 'ping', input: { n: 1 } }),
      );
      await until(() => started.length === 1, 3_000);
      expect((started[0] ?? Infinity) - at).toBeLessThan(500);
      expect(worker.stats().claims).toBeGreaterThan(before);
    } finally {
      await worker.stop();
    }
  });
});
