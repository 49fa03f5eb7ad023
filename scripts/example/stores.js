'use strict';
// Where the example's jobs live: PostgreSQL, or Redis under JOBS_DRIVER=redis (scripts/run-example.js).
const { spawnSync } = require('node:child_process');

/** `JOBS_DRIVER`: `postgres` (default) or `redis`. */
function jobsDriver() {
  const driver = process.env.JOBS_DRIVER || 'postgres';
  if (driver !== 'postgres' && driver !== 'redis') {
    throw new Error(`JOBS_DRIVER must be postgres or redis (got "${driver}").`);
  }
  return driver;
}

/**
 * The Redis the jobs run on under JOBS_DRIVER=redis: REDIS_URL when set, else a throwaway redis-server (no
 * persistence, maxmemory-policy noeviction) in a temp directory. Answers `{ url, source, stop }`.
 */
async function exampleRedis() {
  if (process.env.REDIS_URL) {
    return { url: process.env.REDIS_URL, source: 'REDIS_URL', stop: async () => undefined };
  }
  const probe = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  if (probe.error) {
    throw new Error(
      'JOBS_DRIVER=redis needs a Redis: redis-server is not installed (not on PATH), and REDIS_URL is unset. ' +
        'Install Redis 7 or later (apt-get install redis-server, brew install redis), or set REDIS_URL to a Redis with maxmemory-policy noeviction.',
    );
  }
  const { startThrowawayRedis } = await import('../throwaway-redis.mjs');
  const server = await startThrowawayRedis({ name: 'jobs-example-redis' });
  return { url: server.url, source: 'throwaway: started', stop: () => server.stop() };
}

module.exports = { jobsDriver, exampleRedis };
