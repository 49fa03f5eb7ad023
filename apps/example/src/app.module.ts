import { Module } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { ExampleJobsModule, exampleJobsBackend, PostsBackfillModule } from '@ultimat3/example-jobs';
import { JobsHealthModule, JobsModule, OutboxModule, type JobsModuleOptions } from '@ultimat3/jobs';
import type { DataSource } from 'typeorm';
import { exampleOutboxStore, exampleTypeOrmOptions, migrateExampleOutbox } from './database';
import { BackfillsController } from './backfills.controller';
import { JobsController } from './jobs.controller';
import { OnboardingController } from './onboarding.controller';
import { PostsController } from './posts.controller';
import { TasksController } from './tasks.controller';

/**
 * The example HTTP app: the web role only, on PostgreSQL (`DATABASE_URL`, which `main.ts` points at the embedded
 * server when it is unset) — or, with `JOBS_DRIVER=redis`, its jobs on Redis (`REDIS_URL`) and its posts and outbox
 * in PostgreSQL. One pool: TypeORM's DataSource, which `JobsModule` reuses. `apps/worker`, another process
 * on the same database, runs the jobs, fires the tasks and relays the outbox.
 *
 * `OutboxModule` with `interceptAll: false`: only `POST /orgs/:orgId/posts` runs in a transaction (its
 * `@UseInterceptors(OutboxInterceptor)`), so its enqueue is staged with the post. Every other enqueue — the onboarding —
 * happens outside one and is published straight to the driver (`mode: 'optional'`), answering `deduped` as before.
 *
 * Its schema is TypeORM migrations run at boot (`exampleTypeOrmOptions`); `POST /backfills/posts.slug` gates the
 * backfill that fills the column the second one adds, and queues it for the worker.
 */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({ useFactory: () => exampleTypeOrmOptions() }),
    JobsModule.forRootAsync({
      // a JobsError thrown by a handler answers its status (a bad input 400 with the issue paths), not a 500
      httpErrors: true,
      // the jobs series in prom-client's default registry, served at GET /metrics
      metrics: { path: '/metrics' },
      inject: [getDataSourceToken()],
      useFactory: async (dataSource: DataSource): Promise<JobsModuleOptions> => ({
        // JOBS_DRIVER=redis: the jobs on Redis (REDIS_URL), the outbox still staged in PostgreSQL
        ...(await exampleJobsBackend({
          dataSource,
          migrateOutbox: () => migrateExampleOutbox(dataSource),
        })),
        roles: ['web'],
      }),
    }),
    ExampleJobsModule,
    // the posts repository, and the posts.slug backfill this app gates and triggers (the worker sweeps it)
    PostsBackfillModule,
    // GET /health/live and /health/ready through Terminus: a web process is ready while its database answers
    JobsHealthModule.forRoot({ path: 'health' }),
    // after JobsModule: its bootstrap installs the outbox facade over the one JobsModule installed
    OutboxModule.forRoot({
      dataSource: getDataSourceToken(),
      store: exampleOutboxStore,
      interceptAll: false,
    }),
  ],
  controllers: [
    OnboardingController,
    PostsController,
    JobsController,
    TasksController,
    BackfillsController,
  ],
})
export class AppModule {}
