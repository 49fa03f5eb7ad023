import { randomBytes } from 'node:crypto';
import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { until } from '../../../../test/until';
import { startThrowawayRedis } from '../../../../scripts/throwaway-redis.mjs';
import { testRedisUrl } from '../../../jobs-redis/test/test-redis';
import { job } from '../declare/job';
import { t } from '../schema/t';
import { JobsModule } from './jobs.module';
import { JobsService } from './jobs.service';

const ran: number[] = [];
const double = job({
  name: 'module-redis.double',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: async ({ input, step }) => {
    ran.push(await step.run('double', () => input.n * 2));
  },
});

/** A deployment name of its own on the shared test server (its keys are left to the throwaway server's end). */
const prefix = (): string => `module-redis-${randomBytes(6).toString('hex')}`;

async function boot(options: Parameters<typeof JobsModule.forRoot>[0]) {
  const app = await Test.createTestingModule({
    imports: [JobsModule.forRoot(options), JobsModule.forFeature({ jobs: [{ double }] })],
  }).compile();
  app.useLogger(false);
  return app.init();
}

/**
 * `driver: 'redis'` by name, on the real `redis-server` the jest global setup started: the module loads
 * `@ultimat3/jobs-redis`, runs jobs on it and closes what it opened — the client of a URL, never the app's own.
 */
describe("JobsModule.forRoot({ driver: 'redis' })", () => {
  it('opens redis.url, runs an enqueued job to done, and quits its own client at shutdown', async () => {
    const app = await boot({
      driver: 'redis',
      redis: { url: testRedisUrl(), prefix: prefix() },
      roles: ['web', 'worker'],
      worker: { pollIntervalMs: 20, idlePollMaxMs: 100 },
    });
    const driver = app.get(JobsService).driver;
    expect(driver.kind).toBe('redis');
    const { id } = await app.get(JobsService).enqueue(double, { n: 21 });
    await until(async () => (await driver.get(id))?.state === 'done');
    expect(ran).toContain(42);
    await app.close();
    // the client the module opened on the URL is gone with it
    await expect(driver.ping!()).rejects.toThrow();
  });

  it('reuses redis.client and leaves it open for the app; the URL defaults to REDIS_URL', async () => {
    const client = new Redis(testRedisUrl());
    const previous = process.env['REDIS_URL'];
    try {
      const app = await boot({
        driver: 'redis',
        redis: { client, prefix: prefix() },
        roles: ['web'],
      });
      expect(app.get(JobsService).driver.kind).toBe('redis');
      await app.close();
      expect(await client.ping()).toBe('PONG');

      process.env['REDIS_URL'] = testRedisUrl();
      const fromEnv = await boot({ driver: 'redis', redis: { prefix: prefix() }, roles: ['web'] });
      await expect(fromEnv.get(JobsService).driver.ping!()).resolves.toBeUndefined();
      await fromEnv.close();
    } finally {
      if (previous === undefined) delete process.env['REDIS_URL'];
      else process.env['REDIS_URL'] = previous;
      await client.quit();
    }
  });

  it('refuses to boot on a Redis that may evict keys: X_REDIS_EVICTION_POLICY with the fix', async () => {
    const server = await startThrowawayRedis({ name: 'jobs-module-evict' });
    const admin = new Redis(server.url);
    try {
      await admin.config('SET', 'maxmemory-policy', 'volatile-lru');
      await expect(
        boot({ driver: 'redis', redis: { url: server.url }, roles: ['web'] }),
      ).rejects.toMatchObject({
        code: 'X_REDIS_EVICTION_POLICY',
        fix: expect.stringContaining('CONFIG SET maxmemory-policy noeviction') as unknown,
        meta: { maxmemoryPolicy: 'volatile-lru' },
      });
    } finally {
      await admin.quit();
      await server.stop();
    }
  });
});
