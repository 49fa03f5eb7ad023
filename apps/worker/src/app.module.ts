import { Module } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import {
  ExampleJobsModule,
  exampleDatabaseUrl,
  exampleJobsBackend,
  Post,
  PostsBackfillModule,
} from '@ultimat3/example-jobs';
import { JobsHealthModule, JobsModule, OutboxModule, type JobsModuleOptions } from '@ultimat3/jobs';
import { migrate, postgresOutboxStore, typeormExecutor } from '@ultimat3/jobs-pg';
import type { DataSource } from 'typeorm';

/**
 * The worker process: the same job modules as the web app, with the worker, scheduler and relay roles, on PostgreSQL
 * (`DATABASE_URL`, which `main.ts` points at the embedded server when it is unset) — or, with `JOBS_DRIVER=redis`, the
 * jobs on Redis (`REDIS_URL`) while the outbox stays in PostgreSQL and the relay publishes from it onto Redis. Any number of these can run: the
 * claims skip each other's rows, one scheduler leads through a lease row, and relays fence the outbox rows they
 * claim.
 *
 * One pool: a TypeORM DataSource with the `Post` entity (the `posts.slug` backfill sweeps that table through it), which
 * `JobsModule` reuses and the outbox store's relay statements run on. It never migrates the example's tables: the web
 * app runs those migrations at boot, and the backfill's gate requires the one that adds the column. `OutboxModule` needs it anyway — its interceptor is bound to one —
 * though with no business routes here, `interceptAll: false`. No keep-alive: `JobsModule` holds the process open while it runs a
 * long-running role. Shutdown: the scheduler, the relay (joining its pass in flight) and the worker stop, in that
 * order, under one deadline; the driver closes, then TypeORM destroys the DataSource, after.
 *
 * Its HTTP routes are the platform's only: `/health/live` (the claim loop turns), `/health/ready` (the database
 * answers, each role runs) through Terminus, and `/metrics` for Prometheus.
 */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      useFactory: () => ({
        type: 'postgres',
        url: exampleDatabaseUrl(),
        entities: [Post],
        synchronize: false,
        migrationsRun: false,
        applicationName: 'ultimat3-worker',
      }),
    }),
    JobsModule.forRootAsync({
      // the jobs series in prom-client's default registry, served at GET /metrics
      metrics: { path: '/metrics' },
      inject: [getDataSourceToken()],
      useFactory: async (dataSource: DataSource): Promise<JobsModuleOptions> => ({
        // JOBS_DRIVER=redis: the jobs on Redis (REDIS_URL), the outbox still staged in PostgreSQL
        ...(await exampleJobsBackend({
          dataSource,
          migrateOutbox: () => migrate(typeormExecutor(dataSource)),
        })),
        roles: ['worker', 'scheduler', 'relay'],
      }),
    }),
    ExampleJobsModule,
    // the posts.slug backfill, bound to the injected posts repository: its passes run here
    PostsBackfillModule,
    // after JobsModule: the relay starts once the driver is open, and stops before it closes
    OutboxModule.forRoot({
      dataSource: getDataSourceToken(),
      // wakeUrl: the relay's LISTEN wake on the outbox's own PostgreSQL, whichever driver holds the jobs
      store: (dataSource) =>
        postgresOutboxStore({
          executor: typeormExecutor(dataSource),
          wakeUrl: exampleDatabaseUrl(),
        }),
      interceptAll: false,
    }),
    JobsHealthModule.forRoot({ path: 'health' }),
  ],
})
export class WorkerModule {}
