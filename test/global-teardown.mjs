import { rmSync } from 'node:fs';

/**
 * Jest global teardown: stops the PostgreSQL and Redis `global-setup.mjs` started (none when a URL was given), and
 * removes the connect jail's log directory.
 */
export default async function globalTeardown() {
  const jailDir = globalThis.__JOBS_TEST_JAIL_DIR__;
  globalThis.__JOBS_TEST_JAIL_DIR__ = undefined;
  if (jailDir) rmSync(jailDir, { recursive: true, force: true });
  const redis = globalThis.__JOBS_TEST_REDIS__;
  globalThis.__JOBS_TEST_REDIS__ = undefined;
  if (redis) await redis.stop();
  const pg = globalThis.__JOBS_TEST_PG__;
  globalThis.__JOBS_TEST_PG__ = undefined;
  if (pg) await pg.stop();
}
