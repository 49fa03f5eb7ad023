import { createTestDatabase, type TestDatabase } from '../../../../libs/jobs-pg/test/test-database';

/**
 * A fresh database of the run's test PostgreSQL for one test file, set as `DATABASE_URL` — what `AppModule`'s
 * `forRootAsync` factories read, as `main.ts` sets it in production. Not migrated: the app's `JobsModule` (on the
 * postgres driver) migrates at boot, and the app's TypeORM migrations create `posts`. `drop()` restores the previous
 * `DATABASE_URL`, then drops the database.
 */
export async function exampleTestDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase({ migrate: false });
  const previous = process.env['DATABASE_URL'];
  process.env['DATABASE_URL'] = db.url;
  return {
    ...db,
    async drop() {
      if (previous === undefined) delete process.env['DATABASE_URL'];
      else process.env['DATABASE_URL'] = previous;
      await db.drop();
    },
  };
}
