import { driverBackend } from '../driver/backend';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { frozenClock } from '../testing/frozen-clock';
import { openJobsBackend, type OpenBackendContext } from './backends';
import type { RedisPackage } from './backends.redis';
import { loadJobsConfig, resolveJobsConfig } from './jobs.config';
import type { JobsModuleOptions } from './jobs.options';

/** A stand-in for `@ultimat3/jobs-redis` that records what it was asked to open (the real one: jobs-redis.spec). */
function recordingRedis(): { readonly load: () => RedisPackage; readonly calls: unknown[] } {
  const calls: unknown[] = [];
  const driver = memoryJobDriver({ clock: frozenClock() });
  return {
    calls,
    load: () => ({
      redisBackend: (options) => {
        calls.push(options);
        return Promise.resolve(driverBackend(driver));
      },
    }),
  };
}

const context = (over: Partial<OpenBackendContext> = {}): OpenBackendContext => ({
  clock: undefined,
  memoryClock: frozenClock(),
  env: {},
  ...over,
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'resolved',
    (error: unknown) => error,
  );
}

describe("openJobsBackend: driver 'redis'", () => {
  it('opens redis.url, else REDIS_URL, passing prefix, connectTimeoutMs and an explicit clock through', async () => {
    const redis = recordingRedis();
    const clock = frozenClock();
    await openJobsBackend(
      { driver: 'redis', redis: { url: 'redis://a:6379', prefix: 'shop', connectTimeoutMs: 500 } },
      context({ loadRedis: redis.load, clock, env: { REDIS_URL: 'redis://env:6379' } }),
    );
    await openJobsBackend(
      { driver: 'redis' },
      context({ loadRedis: redis.load, env: { REDIS_URL: 'redis://env:6379' } }),
    );
    expect(redis.calls).toEqual([
      { url: 'redis://a:6379', prefix: 'shop', clock, connectTimeoutMs: 500 },
      { url: 'redis://env:6379' },
    ]);
  });

  it("hands the app's client over as it is (reused, not a second connection)", async () => {
    const redis = recordingRedis();
    const client = { ping: () => Promise.resolve('PONG') };
    await openJobsBackend(
      { driver: 'redis', redis: { client } },
      context({ loadRedis: redis.load, env: { REDIS_URL: 'redis://ignored' } }),
    );
    expect(redis.calls).toEqual([{ client }]);
  });

  it('is X_DRIVER_UNAVAILABLE with nowhere to connect, or a client that is not one — before loading anything', async () => {
    const loadRedis = jest.fn();
    const nowhere = await failure(openJobsBackend({ driver: 'redis' }, context({ loadRedis })));
    expect(nowhere).toMatchObject({
      code: 'X_DRIVER_UNAVAILABLE',
      fix: expect.stringContaining('REDIS_URL'),
    });
    expect(String(nowhere)).toMatch(/no redis\.url, no REDIS_URL, no redis\.client/);
    const notAClient = { client: {} } as unknown as JobsModuleOptions['redis'];
    expect(
      errorCodeOf(
        await failure(
          openJobsBackend({ driver: 'redis', redis: notAClient }, context({ loadRedis })),
        ),
      ),
    ).toBe('X_DRIVER_UNAVAILABLE');
    expect(loadRedis).not.toHaveBeenCalled();
  });

  it('is X_PEER_MISSING with the install line when @ultimat3/jobs-redis is not installed', async () => {
    const loadRedis = (): never => {
      throw Object.assign(new Error("Cannot find module '@ultimat3/jobs-redis'"), {
        code: 'MODULE_NOT_FOUND',
      });
    };
    const error = await failure(
      openJobsBackend({ driver: 'redis', redis: { url: 'redis://a' } }, context({ loadRedis })),
    );
    expect(error).toMatchObject({
      code: 'X_PEER_MISSING',
      fix: 'npm install @ultimat3/jobs-redis ioredis',
    });
    expect(String(error)).toMatch(/driver 'redis' needs the optional peer @ultimat3\/jobs-redis/);
    const wrongVersion = await failure(
      openJobsBackend(
        { driver: 'redis', redis: { url: 'redis://a' } },
        context({ loadRedis: () => ({}) }),
      ),
    );
    expect(wrongVersion).toMatchObject({ code: 'X_DRIVER_UNAVAILABLE' });
    expect(String(wrongVersion)).toMatch(/has no redisBackend\(\)/);
  });

  it('opens only asynchronously, and only after every other option checked', async () => {
    expect(() => resolveJobsConfig({ driver: 'redis' }, { REDIS_URL: 'redis://a' })).toThrow(
      expect.objectContaining({ code: 'X_DRIVER_UNAVAILABLE' }),
    );
    const bad = { driver: 'redis', roles: ['janitor'] } as unknown as JobsModuleOptions;
    expect(errorCodeOf(await failure(loadJobsConfig(bad, { REDIS_URL: 'redis://a' })))).toBe(
      'X_INVARIANT',
    );
  });
});
