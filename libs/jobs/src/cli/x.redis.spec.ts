import { redisBackend } from '@ultimat3/jobs-redis';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { xCliScenario } from '../../test/x-cli/scenario';

/** The real `x` against the test redis-server, under a deployment prefix of this file's own (its keys deleted afterwards). */
xCliScenario('Redis', async () => {
  const url = process.env['JOBS_TEST_REDIS_URL'];
  if (url === undefined)
    throw new Error(
      'JOBS_TEST_REDIS_URL is unset: run through jest (its globalSetup starts redis-server).',
    );
  const prefix = `x-cli-${randomBytes(5).toString('hex')}`;
  const backend = await redisBackend({ url, prefix });
  return {
    flags: ['--url', url, '--prefix', prefix],
    driver: backend.driver,
    async close() {
      await backend.close();
      const client = new Redis(url);
      const keys = await client.keys(`*${prefix}*`);
      if (keys.length > 0) await client.del(...keys);
      await client.quit();
    },
  };
});
