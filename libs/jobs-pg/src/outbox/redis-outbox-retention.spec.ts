import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { Test, type TestingModule } from '@nestjs/testing';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import {
  JobRegistry,
  JobsModule,
  JobsService,
  OutboxModule,
  recordingLogger,
  resolveRetention,
  RETENTION_JOB,
  RETENTION_QUEUE,
  uuidv7,
} from '@ultimat3/jobs';
import { until } from '../../../../test/until';
import { enqueueRequest } from '../../../jobs/test/requests';
import { testRedisUrl } from '../../../jobs-redis/test/test-redis';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresOutboxStore } from './pg-outbox-store';

const DAY = 24 * 3_600_000;

/**
 * The outbox's audit trail lives in PostgreSQL while the jobs live in Redis: the module's retention sweep empties its
 * published rows all the same (the store's own target), where only the `'postgres'` driver's targets reached
 * `x_outbox` and the table grew for good.
 */
describe('retention of the outbox beside driver: redis', () => {
  const db = pgJobsSpec();
  let app: TestingModule | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  /** An outbox row staged `ageMs` ago, published then too unless `published` is false. */
  const row = async (ageMs: number, published = true): Promise<string> => {
    const at = new Date(Date.now() - ageMs).toISOString();
    const id = uuidv7(Date.now() - ageMs);
    await db.executor.query(
      `insert into x_outbox (id, run_id, name, queue, request, staged_at, published_at)
       values ($1, $2, 'retention.row', 'q', '{}', $3, $4)`,
      [id, randomUUID(), at, published ? at : null],
    );
    return id;
  };

  it("sweeps published rows past finishedMs with the module's own sweep, and nothing younger or unpublished", async () => {
    const store = postgresOutboxStore({ executor: db.executor });
    const old = await row(8 * DAY);
    const young = await row(DAY);
    const pending = await row(30 * DAY, false);
    app = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({ type: 'postgres', url: db.url, entities: [] }),
        JobsModule.forRoot({
          driver: 'redis',
          redis: {
            url: testRedisUrl(),
            prefix: `outbox-retention-${randomBytes(6).toString('hex')}`,
          },
          roles: ['web', 'worker'],
          logger: recordingLogger(),
        }),
        OutboxModule.forRoot({ dataSource: getDataSourceToken(), store, interceptAll: false }),
      ],
    }).compile();
    await app.init();
    expect(app.get(JobsService).driver.kind).toBe('redis');
    // what the driver sweeps on its own has no outbox; the store adds it
    const own = app.get(JobsService).driver.purgeTargets?.(resolveRetention()) ?? [];
    expect(own.map((t) => t.name)).not.toContain('x_outbox');

    expect(app.get(JobRegistry).get(RETENTION_JOB)?.body).toBeDefined();
    // the sweep as its hourly task enqueues it (the worker hears the enqueue through the Redis wake)
    const driver = app.get(JobsService).driver;
    const { id } = await driver.enqueue(
      enqueueRequest({ name: RETENTION_JOB, queue: RETENTION_QUEUE, input: {}, tenantId: null }),
    );
    await until(async () => (await driver.get(id))?.state === 'done', 10_000);

    const { rows } = await db.executor.query<{ id: string }>(
      'select id from x_outbox order by id',
      [],
    );
    expect(rows.map((r) => r.id).sort()).toEqual([young, pending].sort());
    expect(rows.map((r) => r.id)).not.toContain(old);
  });
});
