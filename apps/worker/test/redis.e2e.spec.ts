import { randomBytes, randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { notifySubscribers, SubscribersService } from '@ultimat3/example-jobs';
import { JobsService } from '@ultimat3/jobs';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { pgJobsSpec } from '../../../libs/jobs-pg/test/pg-jobs-spec';
import { testRedisUrl } from '../../../libs/jobs-redis/test/test-redis';
import { WorkerModule } from '../src/app.module';
import { until } from './support/worker-process';

/** The variables the worker app reads, set for this file and put back after. */
const VARIABLES = ['DATABASE_URL', 'JOBS_DRIVER', 'REDIS_URL', 'JOBS_REDIS_PREFIX'] as const;

/**
 * The worker app's own module with `JOBS_DRIVER=redis`, in-process, on the throwaway `redis-server` the jest global
 * setup started and a real PostgreSQL: `driver: 'redis'` selected by name, the outbox staged in a PostgreSQL
 * transaction and relayed onto Redis, the job run there (and never written to PostgreSQL's job table), and the
 * platform's endpoints — `/health/ready` naming the Redis driver, `/metrics` counting the run — served from it.
 */
describe('the worker app on JOBS_DRIVER=redis: outbox in PostgreSQL, jobs on Redis, health and metrics', () => {
  let app: INestApplication | undefined;
  const previous = new Map(VARIABLES.map((name) => [name, process.env[name]]));

  // the worker creates the outbox table itself
  const db = pgJobsSpec({
    migrate: false,
    beforeDrop: async () => {
      await app?.close();
      for (const [name, value] of previous) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    },
  });
  beforeAll(async () => {
    process.env['DATABASE_URL'] = db.url;
    process.env['JOBS_DRIVER'] = 'redis';
    process.env['REDIS_URL'] = testRedisUrl();
    process.env['JOBS_REDIS_PREFIX'] = `worker-e2e-${randomBytes(6).toString('hex')}`;
    const moduleRef = await Test.createTestingModule({ imports: [WorkerModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });

  const count = async (sql: string, id: string): Promise<number> =>
    (await db.pool.query<{ n: number }>(sql, [id])).rows[0]?.n ?? 0;

  it('relays a committed staging onto Redis and runs it there; a rolled-back one never arrives', async () => {
    const driver = app!.get(JobsService).driver;
    expect(driver.kind).toBe('redis');
    const dataSource = app!.get(DataSource);
    const orgId = randomUUID();

    let doomed = '';
    await expect(
      dataSource.transaction(async (manager) => {
        doomed = (await notifySubscribers.enqueue({ postId: randomUUID(), orgId }, { manager })).id;
        throw new Error('the caller changed its mind');
      }),
    ).rejects.toThrow('changed its mind');

    const postId = randomUUID();
    const staged = await dataSource.transaction((manager) =>
      notifySubscribers.enqueue({ postId, orgId }, { manager }),
    );
    const done = await until(
      'the relay to publish onto Redis and the worker to run the job',
      async () => {
        const row = await driver.get(staged.id);
        return row?.state === 'done' ? row : undefined;
      },
    );
    expect(done).toMatchObject({ id: staged.id, name: 'notifySubscribers', tenantId: orgId });
    expect((await driver.steps.load(staged.id)).length).toBeGreaterThan(0);
    expect(app!.get(SubscribersService).sent.filter((n) => n.postId === postId)).toHaveLength(3);
    expect(
      await count(
        'select count(*)::int as n from x_outbox where id = $1 and published_at is not null',
        staged.id,
      ),
    ).toBe(1);
    // the job lives in Redis only: the migration created x_jobs, and nothing was written to it
    expect(await count('select count(*)::int as n from x_jobs where id = $1', staged.id)).toBe(0);

    expect(doomed).not.toBe('');
    expect(await count('select count(*)::int as n from x_outbox where id = $1', doomed)).toBe(0);
    expect(await driver.get(doomed)).toBeUndefined();
  });

  it('answers /health/ready up with the Redis driver, and /metrics with the run counted', async () => {
    const ready = await until('ready', async () => {
      const res = await request(app!.getHttpServer()).get('/health/ready');
      return res.status === 200 ? (res.body as { details: Record<string, unknown> }) : undefined;
    });
    expect(ready.details['jobs']).toMatchObject({
      driver: { status: 'up', kind: 'redis' },
      worker: { status: expect.stringMatching(/^(up|degraded)$/) as unknown },
      scheduler: { status: 'up' },
      relay: { status: 'up' },
    });
    expect((await request(app!.getHttpServer()).get('/health/live')).status).toBe(200);

    const scrape = await request(app!.getHttpServer()).get('/metrics');
    expect(scrape.status).toBe(200);
    // the relay's publish went through the counting driver, the run settled ok; the gauges read Redis's stats
    expect(scrape.text).toMatch(/^jobs_enqueued_total\{queue="default"\} [1-9]\d*$/m);
    expect(scrape.text).toMatch(/^jobs_total\{queue="default",outcome="ok"\} [1-9]\d*$/m);
    expect(scrape.text).toMatch(/^queue_depth\{queue="default"\} \d+$/m);
    expect(scrape.text).toMatch(/^# TYPE worker_slots_busy gauge$/m);
  });
});
