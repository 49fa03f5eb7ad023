/** Jest global teardown: stops the PostgreSQL and Redis `global-setup.mjs` started (none when a URL was given). */
export default async function globalTeardown() {
  const redis = globalThis.__JOBS_TEST_REDIS__;
  globalThis.__JOBS_TEST_REDIS__ = undefined;
  if (redis) await redis.stop();
  const pg = globalThis.__JOBS_TEST_PG__;
  globalThis.__JOBS_TEST_PG__ = undefined;
  if (pg) await pg.stop();
}
