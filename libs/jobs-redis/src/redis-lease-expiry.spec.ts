import { frozenClock } from '@ultimat3/jobs/testing';
import { testRedisSpec } from '../test/redis-spec';
import { redisJobDriver } from './redis-driver';

const file = testRedisSpec();

/**
 * A fleet lease slot on Redis is free the instant its expiry comes (as on every driver): renewing it then must not
 * take it back, or its old holder and the one acquiring it at that same instant would both think they hold it.
 */
describe('the Redis fleet lease at its expiry', () => {
  it('is not renewed once its expiry came, and goes to the next holder', async () => {
    const clock = frozenClock();
    const driver = redisJobDriver({
      client: file.redis.client,
      prefix: file.redis.prefix(),
      clock,
    });
    const { leases } = driver;
    expect(await leases.acquire('k', 'a', 1, 1_000)).toBe(true);
    await clock.advance(999);
    expect(await leases.renew('k', 'a', 1_000)).toBe(true);
    await clock.advance(1_000);
    expect(await leases.renew('k', 'a', 1_000)).toBe(false);
    expect(await leases.acquire('k', 'b', 1, 1_000)).toBe(true);
    expect((await leases.holders('k')).map((h) => h.holder)).toEqual(['b']);
    await driver.close();
  });
});
