import 'reflect-metadata';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  job,
  JobsModule,
  prepareEnqueue,
  JobsService,
  recordingLogger,
  SchedulerHost,
  t,
  task,
  type JobRow,
  type JobsModuleOptions,
  type RecordingLogger,
} from '@ultimat3/jobs';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import { untilValue as until } from '../../../../test/until';
import { postgresJobDriver } from '../driver/pg-driver';
import { postgresBackend } from './pg-backend';

const ran: string[] = [];

const greet = job({
  name: 'nest-pg.greet',
  input: t.object({ who: t.string }),
  idempotencyKey: ({ who }) => who,
  tenant: 'none',
  run: ({ input }) => {
    ran.push(input.who);
    return `hello ${input.who}`;
  },
});

const hourly = task({
  name: 'nest-pg.hourly',
  cron: '0 * * * *',
  tz: 'UTC',
  enqueue: (occurrenceMs) => [[greet, { who: `tick-${occurrenceMs}` }]],
});

const feature = JobsModule.forFeature({ jobs: [{ greet }], tasks: [{ hourly }] });
const FAST_WORKER = { pollIntervalMs: 20, idlePollMaxMs: 100 };

describe("JobsModule.forRoot({ driver: 'postgres' }) on a real PostgreSQL", () => {
  let db: TestDatabase;
  let app: INestApplicationContext | undefined;
  let logger: RecordingLogger;

  beforeEach(async () => {
    db = await createTestDatabase({ migrate: false });
    logger = recordingLogger();
    ran.length = 0;
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await db?.drop();
  });

  const poolConnections = async (): Promise<number> => {
    const { rows } = await db.pool.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
       where application_name = 'ultimat3-jobs' and datname = $1`,
      [db.name],
    );
    return rows[0]?.n ?? 0;
  };

  const doneRow = (id: string) =>
    until(`job ${id} done`, async () => {
      const row = await app!.get(JobsService).driver.get(id);
      return row?.state === 'done' ? row : undefined;
    });

  it('boots on a url, migrates before bootstrap ends, runs an enqueued job, and closes its pool last', async () => {
    const options: JobsModuleOptions = {
      driver: 'postgres',
      postgres: { url: db.url, poolSize: 4 },
      roles: ['web', 'worker', 'scheduler'],
      worker: FAST_WORKER,
      logger,
    };
    const moduleRef = await Test.createTestingModule({
      imports: [JobsModule.forRoot(options), feature],
    }).compile();
    app = await moduleRef.init();

    const { rows } = await db.pool.query(`select to_regclass('x_jobs') as t`);
    expect(rows[0]).toEqual({ t: 'x_jobs' });
    const { id } = await greet.enqueue({ who: 'ada' });
    const row: JobRow = await doneRow(id);
    expect(row.attempt).toBe(1);
    expect(ran).toEqual(['ada']);

    // the scheduler role runs on the driver's durable state and lease, not memory defaults
    expect(logger.named('jobs.scheduler.memory-defaults')).toEqual([]);
    const scheduler = app.get(SchedulerHost).scheduler;
    await until('the scheduler to lead', async () => (scheduler?.isLeader() ? true : undefined));
    await until('the task armed', async () => {
      const armed = await db.pool.query(`select 1 from x_scheduler_state where task = $1`, [
        hourly.name,
      ]);
      return armed.rowCount === 1 ? true : undefined;
    });

    expect(await poolConnections()).toBeGreaterThan(0);
    await app.close();
    app = undefined;
    // the server notices each closed connection a moment after the client ended it
    await until('the pool to be closed', async () =>
      (await poolConnections()) === 0 ? true : undefined,
    );
  });

  it('takes a backend object: forRoot({ backend: await postgresBackend({ url }) }), with its durable scheduler', async () => {
    const backend = await postgresBackend({ url: db.url, poolSize: 2 });
    const moduleRef = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({
          backend,
          roles: ['web', 'worker', 'scheduler'],
          worker: FAST_WORKER,
          logger,
        }),
        feature,
      ],
    }).compile();
    app = await moduleRef.init();
    expect(app.get(JobsService).driver).toBe(backend.driver);
    const { id } = await greet.enqueue({ who: 'grace' });
    expect((await doneRow(id)).attempt).toBe(1);
    expect(logger.named('jobs.scheduler.memory-defaults')).toEqual([]);
    await app.close();
    app = undefined;
    await until('the pool to be closed', async () =>
      (await poolConnections()) === 0 ? true : undefined,
    );
  });

  it('wakes the worker role through a proven LISTEN session when another process enqueues', async () => {
    const options: JobsModuleOptions = {
      driver: 'postgres',
      postgres: { url: db.url, poolSize: 4 },
      roles: ['worker'],
      // A ceiling no test waits out: a prompt start can only come from the wake.
      worker: { pollIntervalMs: 20, idlePollMaxMs: 60_000 },
      logger,
    };
    const moduleRef = await Test.createTestingModule({
      imports: [JobsModule.forRoot(options), feature],
    }).compile();
    app = await moduleRef.init();
    await until('the wake proven', async () =>
      logger.named('jobs.wake.live').length > 0 ? true : undefined,
    );
    // Let the idle loop back off: its waits double from 20 ms, so after 3 s the next poll is 2 s or more away.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const other = postgresJobDriver({ executor: db.executor });
    const request = await prepareEnqueue(greet, { who: 'grace' }, {}, undefined, Date.now());
    const startedAt = Date.now();
    await other.enqueue(request);
    await doneRow(request.id);
    expect(Date.now() - startedAt).toBeLessThan(1_500);
    expect(ran).toEqual(['grace']);
  });

  it('reuses the TypeORM DataSource of @nestjs/typeorm: no pool of its own', async () => {
    @Module({
      imports: [
        TypeOrmModule.forRoot({ type: 'postgres', url: db.url, poolSize: 4 }),
        JobsModule.forRootAsync({
          inject: [DataSource],
          useFactory: (dataSource: DataSource): JobsModuleOptions => ({
            driver: 'postgres',
            postgres: { dataSource },
            roles: ['web', 'worker'],
            worker: FAST_WORKER,
            logger,
          }),
        }),
        feature,
      ],
    })
    class TypeormApp {}

    const moduleRef = await Test.createTestingModule({ imports: [TypeormApp] }).compile();
    app = await moduleRef.init();
    const { id } = await app.get(JobsService).enqueue(greet, { who: 'grace' });
    await doneRow(id);
    expect(ran).toEqual(['grace']);
    expect(await poolConnections()).toBe(0);
    const dataSource = app.get(DataSource);
    const { rows } = await db.pool.query<{ n: number }>(
      'select count(*)::int as n from x_migrations',
    );
    expect(rows[0]?.n).toBeGreaterThan(0);
    expect(dataSource.isInitialized).toBe(true);
  });
});
