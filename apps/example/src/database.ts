import type { TypeOrmModuleOptions } from '@nestjs/typeorm';
import { EXAMPLE_MIGRATIONS, exampleDatabaseUrl, Post } from '@ultimat3/example-jobs';
import { migrate, postgresOutboxStore, typeormExecutor } from '@ultimat3/jobs-pg';
import type { OutboxStore } from '@ultimat3/jobs';
import type { DataSource } from 'typeorm';

/**
 * The example's TypeORM connection: `DATABASE_URL`, the `Post` entity, and the example's own migrations
 * (`EXAMPLE_MIGRATIONS`: `posts`, then its `slug` column), run here at boot in one transaction and recorded in
 * TypeORM's `migrations` table — what the `posts.slug` backfill's `requires` is checked against. Never `synchronize`:
 * it would drop a column only a migration adds. The web app is the one process that migrates; the worker only reads
 * the tables. (The jobs tables are `JobsModule`'s own migrations.) Read when the module is built, after `main.ts` set
 * `DATABASE_URL`.
 */
export function exampleTypeOrmOptions(env: NodeJS.ProcessEnv = process.env): TypeOrmModuleOptions {
  return {
    type: 'postgres',
    url: exampleDatabaseUrl(env),
    entities: [Post],
    migrations: EXAMPLE_MIGRATIONS,
    migrationsRun: true,
    migrationsTransactionMode: 'all',
    synchronize: false,
    applicationName: 'ultimat3-example',
  };
}

/**
 * The outbox store over the app's DataSource: the relay's statements take pooled connections from it, and a `stage()`
 * inside a request runs on the request's own transaction (the `EntityManager` `OutboxInterceptor` made ambient).
 */
export function exampleOutboxStore(dataSource: DataSource): OutboxStore {
  return postgresOutboxStore({
    executor: typeormExecutor(dataSource),
    // the relay's LISTEN wake on this database, whichever driver holds the jobs
    wakeUrl: 'url' in dataSource.options ? dataSource.options.url : undefined,
  });
}

/**
 * Creates the package's tables — the outbox among them — on the app's DataSource: what `JOBS_DRIVER=redis` needs, as
 * the `'postgres'` driver's boot migration no longer runs. Safe when the worker migrates at the same time.
 */
export function migrateExampleOutbox(dataSource: DataSource): Promise<void> {
  return migrate(typeormExecutor(dataSource));
}
