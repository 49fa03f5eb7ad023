import 'reflect-metadata';
import { Test, type TestingModule } from '@nestjs/testing';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import {
  JobsModule,
  OutboxHost,
  OutboxModule,
  recordingLogger,
  type OutboxStore,
  type RecordingLogger,
} from '@ultimat3/jobs';
import { until } from '../../../../test/until';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresOutboxStore } from './pg-outbox-store';
import { OUTBOX_WAKE_CHANNEL } from './wake-channel';

/**
 * The relay's idle ceiling follows its wake through the module: `driver: 'postgres'` starts the LISTEN on
 * `x_outbox_wake` for a `relay` process, and once the probe proves it, the relay idles at 5 s (12 claims a minute).
 */
describe('OutboxModule relay on PostgreSQL: the proven wake reaches the relay', () => {
  let app: TestingModule | undefined;

  const db = pgJobsSpec({
    beforeDrop: async () => {
      await app?.close();
    },
  });

  /** A `relay` process of the jobs on PostgreSQL, its outbox on `store`, compiled (not yet initialised). */
  function relayModule(logger: RecordingLogger, store: OutboxStore): Promise<TestingModule> {
    return Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({ type: 'postgres', url: db.url, entities: [] }),
        JobsModule.forRoot({
          driver: 'postgres',
          postgres: { url: db.url },
          roles: ['relay'],
          logger,
        }),
        OutboxModule.forRoot({ dataSource: getDataSourceToken(), store }),
      ],
    }).compile();
  }

  it('marks the relay wake-live once the probe comes back, and logs which channel', async () => {
    const logger = recordingLogger();
    app = await relayModule(logger, postgresOutboxStore({ executor: db.executor }));
    await app.init();

    const relay = app.get(OutboxHost).relay;
    expect(relay).toBeDefined();
    await until(() => relay?.stats().wakeLive === true);
    expect(logger.named('jobs.wake.live')).toMatchObject([
      { level: 'info', fields: { channel: OUTBOX_WAKE_CHANNEL } },
    ]);
  });

  it("holds ONE session when the store has its own wake too (wakeUrl): the store's, not a second", async () => {
    await app?.close();
    const logger = recordingLogger();
    app = await relayModule(
      logger,
      postgresOutboxStore({ executor: db.executor, wakeUrl: db.url }),
    );
    await app.init();

    const relay = app.get(OutboxHost).relay;
    await until(() => relay?.stats().wakeLive === true);
    // the previous app's session may take a moment to leave pg_stat_activity; a second live one never leaves
    const wakeSessions = async (): Promise<number> =>
      (
        await db.pool.query(
          "select 1 from pg_stat_activity where application_name = 'ultimat3-jobs-wake' and datname = current_database()",
        )
      ).rowCount ?? 0;
    await until(async () => (await wakeSessions()) === 1);
    expect(logger.named('jobs.wake.live')).toMatchObject([
      { level: 'info', fields: { channel: OUTBOX_WAKE_CHANNEL } },
    ]);
  });
});
