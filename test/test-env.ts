/**
 * The PostgreSQL server of this test run: what `global-setup.mjs` started and published as `JOBS_TEST_DATABASE_URL`,
 * or the server `JOBS_TEST_DATABASE_URL` / `DATABASE_URL` named before the run. Test files isolate themselves on it
 * with a database (or schema) of their own.
 */
export function testDatabaseUrl(): string {
  const url = process.env.JOBS_TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!url) {
    throw new Error(
      'No test PostgreSQL: run through jest (its globalSetup starts one) or set JOBS_TEST_DATABASE_URL.',
    );
  }
  return url;
}
