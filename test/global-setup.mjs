/**
 * Jest global setup: one real PostgreSQL for the whole run, handed to the test files through
 * `process.env.JOBS_TEST_DATABASE_URL` (jest workers inherit the environment of this process).
 *
 * When `JOBS_TEST_DATABASE_URL` or `DATABASE_URL` is already set, that server is used and nothing is started. The
 * handle stays on `globalThis` for `global-teardown.mjs`.
 */
import { startThrowawayPostgres } from '../scripts/throwaway-postgres.mjs';

export default async function globalSetup() {
  const given = process.env.JOBS_TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (given) {
    process.env.JOBS_TEST_DATABASE_URL = given;
    return;
  }
  const pg = await startThrowawayPostgres({
    name: 'jobs-test-pg',
    password: 'jobs-test',
    // a throwaway cluster: durability buys nothing here, and fsync is most of a commit's cost
    flags: ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'],
    hint: ' (set JOBS_TEST_DATABASE_URL to use a running server)',
  });
  globalThis.__JOBS_TEST_PG__ = pg;
  process.env.JOBS_TEST_DATABASE_URL = pg.url;
}
