import { claimOf } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { orderedRequests } from '../../jobs/test/requests';
import { createTestRedis, type TestRedis } from '../test/test-redis';
import { redisJobDriver } from './redis-driver';
import { redisKeyPrefix } from './redis-keys';

let redis: TestRedis;

beforeAll(() => {
  redis = createTestRedis();
});

afterAll(async () => {
  await redis?.drop();
});

const request = orderedRequests({ name: 'stats.a', queue: 'q', input: { n: 1 }, runAt: 0 });

describe('redis stats: a live state counted per name only', () => {
  it('answers each live state of a queue as the sum over its names, moves included', async () => {
    const clock = frozenClock(Date.UTC(2026, 0, 1));
    const prefix = redis.prefix();
    const driver = redisJobDriver({ client: redis.client, prefix, clock });
    await driver.enqueue(request({ name: 'stats.a' }));
    await driver.enqueue(request({ name: 'stats.a' }));
    await driver.enqueue(request({ name: 'stats.a|b' }));
    await driver.enqueue(request({ name: 'stats.b', runAt: clock.now() + 60_000 }));
    const claimed = await driver.claim({
      workerId: 'w',
      visibilityTimeoutMs: 30_000,
      slots: [{ queue: 'q', limit: 2 }],
    });
    expect(claimed).toHaveLength(2);
    await driver.ack(claimed[0]!.id, claimOf(claimed[0]!));

    const [stats] = await driver.stats();
    expect(stats).toMatchObject({
      queue: 'q',
      ready: 1,
      delayed: 1,
      running: 1,
      suspended: 0,
      done: 1,
    });
    // a name holding '|' is its own name, and its rows count in the queue's totals
    expect(stats!.names.map((n) => [n.name, n.ready, n.delayed, n.running])).toEqual([
      ['stats.a', 0, 0, 1],
      ['stats.a|b', 1, 0, 0],
      ['stats.b', 0, 1, 0],
    ]);
    // the count hash holds no plain live-state field
    const counts = await redis.client.hgetall(`${redisKeyPrefix(prefix)}q:1:q:n`);
    expect(
      Object.keys(counts)
        .filter((k) => !k.includes('|'))
        .sort(),
    ).toEqual(['done']);
  });

  it('reads a count hash written by a driver that also kept plain live-state counts', async () => {
    const prefix = redis.prefix();
    const driver = redisJobDriver({ client: redis.client, prefix });
    await driver.enqueue(request({ queue: 'old', name: 'stats.a' }));
    const key = `${redisKeyPrefix(prefix)}q:3:old:n`;
    // the former scheme's plain count, left stale once a newer driver moved rows without it
    await redis.client.hset(key, 'ready', '5');
    // a former scheme's stale plain count on a queue whose rows are all gone is not a queue holding rows
    await redis.client.sadd(`${redisKeyPrefix(prefix)}queues`, 'gone');
    await redis.client.hset(`${redisKeyPrefix(prefix)}q:4:gone:n`, 'running', '3');

    const stats = await driver.stats();
    expect(stats.map((s) => [s.queue, s.ready, s.running])).toEqual([['old', 1, 0]]);
  });
});
