import { Client } from 'pg';
import { job, JobRegistry, jobWorker, t, type JobsLogger, type JobWorker } from '@ultimat3/jobs';
import { until } from '../../../../test/until';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresJobDriver } from '../driver/pg-driver';
import { JOBS_MIGRATIONS } from '../migrations/all-migrations';
import type { QueueWake } from './queue-wake';
import { startWorkerWake } from './worker-wake';

const ran: number[] = [];
const old = job({
  name: 'pg.old',
  queue: 'old-q',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: ({ input }) => {
    ran.push(input.n);
  },
});

/**
 * A build with the hand-off over a schema that predates migration 0018 (a rolling deploy's new workers and producers
 * before the migration ran): the wake stays live, the registration fails once and is logged, every enqueue lands
 * and every job runs, woken as before.
 */
describe('the hand-off over a schema without x_job_hand_offs', () => {
  const db = pgJobsSpec({ migrate: false });
  let worker: JobWorker | undefined;
  let wake: QueueWake | undefined;
  beforeAll(async () => {
    for (const migration of JOBS_MIGRATIONS.filter((m) => m.id < 18))
      await db.pool.query(migration.sql);
  });
  afterAll(async () => {
    await wake?.stop();
    await worker?.stop();
  });

  it('keeps the wake and every job: the registration is refused once, enqueues go the plain way', async () => {
    const logged: string[] = [];
    const logger: JobsLogger = { log: (level, event) => logged.push(`${level} ${event}`) };
    const registry = new JobRegistry();
    registry.register(old);
    worker = jobWorker({ driver: postgresJobDriver({ executor: db.executor }), registry });
    wake = startWorkerWake({
      listener: () => new Client({ connectionString: db.url }),
      executor: db.executor,
      target: worker,
      logger,
    });
    expect(await wake.ready()).toBe(true);
    await worker.start();
    await until(() => logged.includes('warn jobs.hand-off.register-failed'));

    const producer = postgresJobDriver({ executor: db.executor });
    for (let n = 0; n < 5; n++) {
      await producer.enqueue(
        request({ name: 'pg.old', queue: 'old-q', input: { n }, idempotencyKey: `n:${n}` }),
      );
    }
    await until(() => ran.length === 5);
    expect([...ran].sort()).toEqual([0, 1, 2, 3, 4]);
    expect(wake.live()).toBe(true);
    expect(logged.filter((line) => line === 'warn jobs.hand-off.register-failed')).toHaveLength(1);
  });
});
