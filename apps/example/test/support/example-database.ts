import { pgJobsSpec, type SpecDatabase } from '../../../../libs/jobs-pg/test/pg-jobs-spec';

/** Options of {@link exampleDatabaseSpec}. */
export interface ExampleDatabaseSpecOptions {
  /** What the spec opened over the database (the app), closed in `afterAll` before it is dropped. */
  readonly beforeDrop?: () => Promise<void> | void;
}

/**
 * `pgJobsSpec` for the example app: a fresh database of the run's test PostgreSQL for one test file, set as
 * `DATABASE_URL` in `beforeAll` — what `AppModule`'s `forRootAsync` factories read, as `main.ts` sets it in
 * production. Not migrated: the app's `JobsModule` (on the postgres driver) migrates at boot, and the app's TypeORM
 * migrations create `posts`. In `afterAll`, after `beforeDrop`, the previous `DATABASE_URL` is restored, then the
 * database dropped. Call it at the top of the spec file or `describe`, before the hooks that start the app.
 */
export function exampleDatabaseSpec(options: ExampleDatabaseSpecOptions = {}): SpecDatabase {
  let previous: string | undefined;
  const db = pgJobsSpec({
    migrate: false,
    beforeDrop: async () => {
      await options.beforeDrop?.();
      if (previous === undefined) delete process.env['DATABASE_URL'];
      else process.env['DATABASE_URL'] = previous;
    },
  });
  beforeAll(() => {
    previous = process.env['DATABASE_URL'];
    process.env['DATABASE_URL'] = db.url;
  });
  return db;
}
