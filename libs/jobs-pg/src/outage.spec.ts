import { Client, Pool } from 'pg';
import { job, JobRegistry, jobWorker, recordingLogger, t, type JobWorker } from '@ultimat3/jobs';
import { testDatabaseUrl } from '../../../test/test-env';
import { until } from '../../../test/until';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver } from './driver/pg-driver';
import { pgPoolExecutor } from './executor/pg-pool-executor';
import { startQueueWake, type QueueWake } from './wake/queue-wake';
import { enqueueRequest } from '../../jobs/test/requests';

/**
 * After a database outage or failover, workers must come back by themselves (queues have been known to stop polling
 * forever, or to leave workers silently dead while the process lived on). Here the database refuses
 * connections and every session the worker held is killed — the pool, the wake's LISTEN — then it comes back.
 */
describe('a worker on PostgreSQL through an outage', () => {
  let admin: Client;
  let workerPool: Pool;
  let worker: JobWorker | undefined;
  let wake: QueueWake | undefined;
  const done: number[] = [];

  const handle = job({
    name: 'outage.job',
    queue: 'outage',
    input: t.object({ n: t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run: ({ input }) => void done.push(input.n),
  });

  let release: () => void = () => undefined;
  let bodies = 0;
  const gated = job({
    name: 'outage.gated',
    queue: 'outage',
    input: t.object({ n: t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    retry: { attempts: 1 }, // a final attempt: had its ack been lost, the lapse would bury it dead
    run: () => {
      bodies++;
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    },
  });

  const db = pgJobsSpec({
    beforeDrop: async () => {
      await wake?.stop();
      await worker?.stop();
      await workerPool?.end();
      await admin.query(`alter database ${db.name} with allow_connections true`);
      await admin.end();
    },
  });
  beforeAll(async () => {
    admin = new Client({ connectionString: testDatabaseUrl() }); // the server's own database, not the victim
    await admin.connect();
  });

  /** Cuts the database off: no new session, every open one (the test's own pool too) terminated. */
  async function cut(): Promise<void> {
    await admin.query(`alter database ${db.name} with allow_connections false`);
    await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [db.name],
    );
  }

  it('logs the failed claims, serves jobs again once the database is back (no restart, no call), and lands an ack sent while it was away', async () => {
    const logger = recordingLogger();
    const registry = new JobRegistry();
    registry.register(handle);
    registry.register(gated);
    workerPool = new Pool({ connectionString: db.url, max: 4 });
    workerPool.on('error', () => undefined); // idle sessions terminated by the outage
    const executor = pgPoolExecutor(workerPool);
    const driver = postgresJobDriver({ executor });
    worker = jobWorker({
      driver,
      registry,
      logger,
      concurrency: 2,
      pollIntervalMs: 50,
      idlePollMaxMs: 200,
    });
    const w = worker;
    wake = startQueueWake({
      listener: () => new Client({ connectionString: db.url }),
      executor,
      target: w,
      logger,
      redialMs: 50,
    });
    expect(await wake.ready()).toBe(true);
    await w.start();

    const enqueuer = postgresJobDriver({ executor: db.executor });
    const enqueue = (n: number, name = 'outage.job') =>
      enqueuer.enqueue(
        enqueueRequest({
          id: crypto.randomUUID(),
          name,
          queue: 'outage',
          input: { n },
          idempotencyKey: `n:${n}`,
          maxAttempts: name === 'outage.job' ? 3 : 1,
        }),
      );
    const settled = async (count: number): Promise<boolean> => {
      const { rows } = await db.pool.query<{ n: string }>(
        `select count(*)::text as n from x_jobs where state = 'done'`,
      );
      return rows[0]?.n === String(count);
    };
    for (let n = 0; n < 3; n++) await enqueue(n);
    await until(() => settled(3));

    await cut();
    await until(() => logger.named('jobs.claim.failed').length >= 2);
    expect(logger.named('jobs.wake.lost').length).toBeGreaterThanOrEqual(1);
    expect(w.stats().inFlight).toBe(0);

    await admin.query(`alter database ${db.name} with allow_connections true`);
    for (let n = 3; n < 8; n++) await enqueue(n);
    await until(() => done.length === 8);
    expect([...done].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // the LISTEN came back too: proven live a second time
    await until(() => logger.named('jobs.wake.live').length >= 2);
    // every run settled once: the body ran once per job and every row ended done
    await until(() => settled(8));
    expect(done).toHaveLength(8);

    // a body that completes while the database is away: its ack is sent again until it lands
    const { id } = await enqueue(100, 'outage.gated');
    await until(() => bodies === 1);
    await cut();
    release();
    await until(() => logger.named('jobs.settle.retrying').length >= 2);
    await admin.query(`alter database ${db.name} with allow_connections true`);
    await until(async () => (await enqueuer.get(id))?.state === 'done');
    expect(await enqueuer.get(id)).toMatchObject({ state: 'done', attempt: 1 });
    expect(bodies).toBe(1);
    expect(logger.named('jobs.worker.execute-failed')).toHaveLength(0);
  });
});
