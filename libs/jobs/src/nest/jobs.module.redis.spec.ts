import { randomBytes } from 'node:crypto';
import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { until } from '../../../../test/until';
import { startThrowawayRedis } from '../../../../scripts/throwaway-redis.mjs';
import { testRedisUrl } from '../../../jobs-redis/test/test-redis';
import { job } from '../declare/job';
import { t } from '../schema/t';
import { JobsHealthIndicator, JobsHealthModule } from './health';
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

/**
 * Readiness through a Redis outage (BullMQ #648: workers silently dead after a failover while the Nest process lived
 * on): a throwaway `redis-server` stopped and started again on its port under a running worker. Readiness names the
 * driver down within the ping's bound while Redis is gone, liveness stays up, and both recover by themselves — the
 * worker then runs a job enqueued after the restart.
 */
describe("JobsModule.forRoot({ driver: 'redis' }) through a Redis outage", () => {
  it('is not ready — the driver down — while Redis is stopped, and ready and working again after', async () => {
    let server = await startThrowawayRedis({ name: 'jobs-module-outage' });
    const app = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({
          driver: 'redis',
          redis: { url: server.url, prefix: prefix() },
          roles: ['web', 'worker'],
          worker: { pollIntervalMs: 20, idlePollMaxMs: 100 },
        }),
        JobsModule.forFeature({ jobs: [{ double }] }),
        JobsHealthModule.forRoot({ pingTimeoutMs: 300 }),
      ],
    }).compile();
    app.useLogger(false);
    await app.init();
    try {
      const health = app.get(JobsHealthIndicator);
      const ready = async () => (await health.isReady())['jobs'];
      const live = async () => (await health.isLive())['jobs'];
      await until(async () => (await ready())?.status !== 'down');

      await server.stop({ keepDir: true });
      expect(await ready()).toMatchObject({
        status: 'down',
        failing: expect.arrayContaining(['driver']) as unknown,
      });
      expect(await live()).toMatchObject({ status: 'up' });

      server = await startThrowawayRedis({ port: server.port, dir: server.dir });
      await until(async () => (await ready())?.status !== 'down', 10_000);
      expect(await live()).toMatchObject({ status: 'up' });
      const { id } = await app.get(JobsService).enqueue(double, { n: 50 });
      const driver = app.get(JobsService).driver;
      await until(async () => (await driver.get(id))?.state === 'done', 10_000);
      expect(ran).toContain(100);
    } finally {
      await app.close();
      await server.stop();
    }
  }, 30_000);
});
