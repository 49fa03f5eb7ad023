import type { JobsModuleOptions, JobsPostgresDataSource } from '@ultimat3/jobs';

/** The drivers the example runs on: `JOBS_DRIVER`, default `postgres`. */
export type ExampleJobsDriver = 'postgres' | 'redis';

/** `JOBS_DRIVER` (default `postgres`); anything else is an error naming the choices, never a silent fallback. */
export function exampleJobsDriver(env: NodeJS.ProcessEnv = process.env): ExampleJobsDriver {
  const driver = env['JOBS_DRIVER'] ?? '';
  if (driver === '' || driver === 'postgres') return 'postgres';
  if (driver === 'redis') return 'redis';
  throw new Error(`JOBS_DRIVER must be postgres or redis (got "${driver}").`);
}

/** What {@link exampleJobsBackend} runs on: the app's DataSource, and how to create the outbox table on it. */
export interface ExampleJobsBackendSources {
  /** The app's TypeORM DataSource (the jobs reuse it on PostgreSQL; the outbox stages in it on either driver). */
  readonly dataSource: JobsPostgresDataSource;
  /**
   * Creates the outbox table in PostgreSQL (`migrate()` of `@ultimat3/jobs-pg`), run when the jobs go to Redis: the
   * `'postgres'` driver's boot migration is then not there to do it.
   */
  readonly migrateOutbox: () => Promise<void>;
}

/**
 * The driver part of the example's `JobsModule` options, by `JOBS_DRIVER`. `postgres`: the jobs live beside the app's
 * rows, on its DataSource. `redis`: the jobs live in Redis (`REDIS_URL`; the deployment `JOBS_REDIS_PREFIX`, default
 * `example`), while the outbox still stages in PostgreSQL — inside the request's transaction — and the worker's relay
 * publishes onto Redis.
 */
export async function exampleJobsBackend(
  sources: ExampleJobsBackendSources,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Pick<JobsModuleOptions, 'driver' | 'postgres' | 'redis'>> {
  if (exampleJobsDriver(env) === 'postgres') {
    return { driver: 'postgres', postgres: { dataSource: sources.dataSource } };
  }
  await sources.migrateOutbox();
  const prefix = env['JOBS_REDIS_PREFIX'];
  return {
    driver: 'redis',
    redis: { prefix: prefix === undefined || prefix === '' ? 'example' : prefix },
  };
}

/** Where the example's jobs run, for its startup line: `PostgreSQL` or `Redis at <host:port>` (never a password). */
export function exampleJobsWhere(env: NodeJS.ProcessEnv = process.env): string {
  if (exampleJobsDriver(env) === 'postgres') return 'PostgreSQL';
  const url = env['REDIS_URL'] ?? '';
  return `Redis at ${url.replace(/\/\/[^@/]*@/, '//***@') || '(REDIS_URL unset)'}`;
}
