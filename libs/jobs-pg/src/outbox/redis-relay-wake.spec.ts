import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { Test, type TestingModule } from '@nestjs/testing';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  job,
  JobsModule,
  JobsService,
  OutboxHost,
  OutboxModule,
  recordingLogger,
  t,
  type OutboxRelay,
} from '@ultimat3/jobs';
import { until } from '../../../../test/until';
import { testRedisUrl } from '../../../jobs-redis/test/test-redis';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresOutboxStore } from './pg-outbox-store';
import { OUTBOX_WAKE_CHANNEL } from './wake-channel';

const ran: string[] = [];
const noted = job({
  name: 'outbox-redis-wake.noted',
  input: t.object({ noteId: t.uuid }),
  idempotencyKey: ({ noteId }) => `noted:${noteId}`,
  tenant: 'none',
  async run({ input }) {
    ran.push(input.noteId);
  },
});

/** The relay's poll, long enough that only a wake can find a commit within the test. */
const A_MINUTE_MS = 60_000;

/**
 * `driver: 'redis'` with the outbox in PostgreSQL: the job backend has no LISTEN, so the relay's wake comes from the
 * store (`postgresOutboxStore({ wakeUrl })`). Its poll is a minute; a job staged in a PostgreSQL transaction is still
 * published onto Redis and run at once, because the commit's notify on `x_outbox_wake` wakes the relay. Without
 * `wakeUrl` the same commit waits for the poll.
 */
describe('OutboxModule relay onto Redis: the outbox store wakes it on commit', () => {
  let app: TestingModule | undefined;

  const db = pgJobsSpec();
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const boot = async (wakeUrl: string | undefined): Promise<OutboxRelay> => {
    const logger = recordingLogger();
    app = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({ type: 'postgres', url: db.url, entities: [] }),
        JobsModule.forRoot({
          driver: 'redis',
          redis: { url: testRedisUrl(), prefix: `relay-wake-${randomBytes(6).toString('hex')}` },
          roles: ['web', 'worker', 'relay'],
          logger,
        }),
        JobsModule.forFeature({ jobs: [{ noted }] }),
        OutboxModule.forRoot({
          dataSource: getDataSourceToken(),
          store: postgresOutboxStore({
            executor: db.executor,
            ...(wakeUrl === undefined ? {} : { wakeUrl }),
          }),
          mode: 'required',
          relay: { intervalMs: A_MINUTE_MS, idlePollMaxMs: A_MINUTE_MS },
        }),
      ],
    }).compile();
    await app.init();
    const relay = app.get(OutboxHost).relay;
    if (relay === undefined) throw new Error('no relay in a relay process');
    // the first pass (at start) is over: from here only a wake or the minute's poll claims again
    await until(() => relay.stats().passes >= 1);
    if (wakeUrl !== undefined) {
      await until(() => relay.stats().wakeLive);
      expect(logger.named('jobs.wake.live')).toMatchObject([
        { level: 'info', fields: { channel: OUTBOX_WAKE_CHANNEL } },
      ]);
    }
    return relay;
  };

  const stageInTransaction = async (): Promise<{ noteId: string; jobId: string }> => {
    const noteId = randomUUID();
    const staged = await app!
      .get(DataSource)
      .transaction((manager) => noted.enqueue({ noteId }, { manager }));
    return { noteId, jobId: staged.id };
  };

  it('publishes a committed staging onto Redis and runs it within a couple of seconds', async () => {
    const relay = await boot(db.url);
    const { noteId, jobId } = await stageInTransaction();
    await until(() => ran.includes(noteId), 3_000);
    const driver = app!.get(JobsService).driver;
    expect(driver.kind).toBe('redis');
    expect(await driver.get(jobId)).toMatchObject({ id: jobId, state: 'done' });
    // the pass counts its rows once it has marked them published in PostgreSQL, which may be after the job ran
    await until(() => relay.stats().published === 1);
    expect(relay.stats()).toMatchObject({ published: 1, publishFailures: 0 });
  });

  it('without wakeUrl the same commit waits for the poll (the control)', async () => {
    const relay = await boot(undefined);
    const { noteId } = await stageInTransaction();
    // the wake case ran within this window; here nothing claims until the minute's poll
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(relay.stats()).toMatchObject({ published: 0, wakeLive: false });
    expect(ran).not.toContain(noteId);
    expect(await db.pool.query('select 1 from x_outbox where published_at is null')).toMatchObject({
      rowCount: 1,
    });
  });
});
