/**
 * Jest global setup: one real PostgreSQL and one real `redis-server` for the whole run, handed to the test files
 * through `process.env.JOBS_TEST_DATABASE_URL` and `process.env.JOBS_TEST_REDIS_URL` (jest workers inherit the
 * environment of this process).
 *
 * When `JOBS_TEST_DATABASE_URL` or `DATABASE_URL` is already set, that server is used and nothing is started; likewise
 * `JOBS_TEST_REDIS_URL`. The handles stay on `globalThis` for `global-teardown.mjs`.
 */
import { startThrowawayPostgres } from '../scripts/throwaway-postgres.mjs';
import { startThrowawayRedis } from '../scripts/throwaway-redis.mjs';

export default async function globalSetup() {
  await startPostgres();
  try {
    await startRedis();
  } catch (error) {
    // no teardown runs after a failed setup: stop what was started here
    await globalThis.__JOBS_TEST_PG__?.stop();
    throw error;
  }
}

/** A throwaway PostgreSQL unless `JOBS_TEST_DATABASE_URL` or `DATABASE_URL` names one. */
async function startPostgres() {
  const given = process.env.JOBS_TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (given) {
    process.env.JOBS_TEST_DATABASE_URL = given;
    return;
  }
  const pg = await startThrowawayPostgres({
    name: 'jobs-test-pg',
    password: 'jobs-test',
    // a throwaway cluster: durability buys nothing here, and fsync is most of a commit's cost. The chaos tier opens
    // many connections at once (scenario 6: 4 racer processes x 16 beside 4 transaction racers with their pools and
    // the spec's own), more than the default 100 with a previous file's pools still closing.
    flags: ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=400'],
    hint: ' (set JOBS_TEST_DATABASE_URL to use a running server)',
  });
  globalThis.__JOBS_TEST_PG__ = pg;
  process.env.JOBS_TEST_DATABASE_URL = pg.url;
}

/**
 * A throwaway `redis-server` (no persistence) unless `JOBS_TEST_REDIS_URL` names one. Without `redis-server` on PATH
 * nothing is started and the variable stays unset: the Redis driver's specs then fail saying so, and every other spec
 * runs as before (`.ci/run` installs `redis-server`).
 */
async function startRedis() {
  if (process.env.JOBS_TEST_REDIS_URL) return;
  try {
    const redis = await startThrowawayRedis({
      name: 'jobs-test-redis',
      hint: ' (set JOBS_TEST_REDIS_URL to use a running server)',
    });
    globalThis.__JOBS_TEST_REDIS__ = redis;
    process.env.JOBS_TEST_REDIS_URL = redis.url;
  } catch (error) {
    if (!String(error).includes('ENOENT')) throw error;
  }
}
