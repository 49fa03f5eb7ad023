import type { DynamicModule } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import type { DataSourceOptions } from 'typeorm';
import { JobsModule, OutboxModule, recordingLogger } from '@ultimat3/jobs';
import { postgresJobDriver } from '../src/driver/pg-driver';
import { postgresOutboxStore } from '../src/outbox/pg-outbox-store';
import type { TestDatabase } from './test-database';

/** What the app of an outbox spec is made of besides the shared wiring. */
export interface OutboxAppOptions {
  /** The TypeORM entities the spec's handlers write (the schema is synchronized from them). */
  readonly entities: NonNullable<DataSourceOptions['entities']>;
  /** The spec's job declarations, as `JobsModule.forFeature` takes them. */
  readonly jobs: Parameters<typeof JobsModule.forFeature>[0]['jobs'];
  /** Modules that go right after TypeORM's (a transaction plugin that imports it). */
  readonly after?: readonly DynamicModule[];
}

/**
 * The imports of a Nest app that stages jobs through the outbox on `db`: TypeORM, then every role (web, worker and
 * relay, polling fast) over the Postgres driver and outbox store, with the outbox required.
 */
export function outboxAppImports(
  db: Pick<TestDatabase, 'url' | 'executor'>,
  options: OutboxAppOptions,
): DynamicModule[] {
  return [
    TypeOrmModule.forRoot({
      type: 'postgres',
      url: db.url,
      entities: options.entities,
      synchronize: true,
    }),
    ...(options.after ?? []),
    JobsModule.forRoot({
      driver: postgresJobDriver({ executor: db.executor }),
      roles: ['web', 'worker', 'relay'],
      worker: { pollIntervalMs: 20, idlePollMaxMs: 100 },
      logger: recordingLogger(),
    }),
    JobsModule.forFeature({ jobs: options.jobs }),
    OutboxModule.forRoot({
      dataSource: getDataSourceToken(),
      store: postgresOutboxStore({ executor: db.executor }),
      mode: 'required',
      relay: { intervalMs: 20, idlePollMaxMs: 100 },
    }),
  ];
}
