import { claimOf, type ClaimOptions } from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import { until } from '../../../test/until';
import { countingJob, testRedisSpec, wakeSlots } from '../test/redis-spec';
import { redisBackend } from './redis-backend';
import { redisJobDriver, type RedisJobDriver } from './redis-driver';

const QUEUE = 'wake-idle-q';
const VT = 30_000;

const file = testRedisSpec();
const { job: idleJob, request } = countingJob('redis-wake-idle.noop', QUEUE);
const claim: ClaimOptions = {
  workerId: 'w',
  visibilityTimeoutMs: VT,
  slots: [{ queue: QUEUE, limit: 1, names: [idleJob.name] }],
};
const served = new Map([[QUEUE, [idleJob.name]]]);

/**
 * What a claim that found a queue idle records, and what makes that record stale: the driver answers a claim empty
 * without Redis only while nothing there can have become claimable — by time (its first delayed row, its first lease
 * expiry, whichever is sooner) or by a write of its own that made rows waiting.
 */
describe('the Redis wake: idle claims', () => {
  const open = wakeSlots();

  /** This process's driver with its wake live, and another process's driver (no wake) on one frozen clock. */
  async function start(): Promise<{
    clock: FrozenClock;
    driver: RedisJobDriver;
    other: RedisJobDriver;
  }> {
    const { redis } = file;
    const prefix = redis.prefix();
    const clock = frozenClock();
    const backend = await redisBackend({ client: redis.client, prefix, clock });
    open.backend = backend;
    const other = redisJobDriver({ client: redis.client, prefix, clock });
    open.other = other;
    const { driver } = backend;
    open.stopWake = driver.wake.listen({
      signalEnqueued: () => undefined,
      setWakeLive: () => undefined,
    });
    await until(() => driver.wake.live);
    return { clock, driver, other };
  }

  /** Claims until the queue is recorded idle (announcements of earlier writes still on the wire make a record stale). */
  async function settleIdle(driver: RedisJobDriver): Promise<void> {
    await until(async () => {
      expect(await driver.claim(claim)).toEqual([]);
      return driver.wake.skips(claim, served);
    });
  }

  it('records a queue idle until the sooner of its first delayed row and its first lease expiry', async () => {
    const { clock, driver, other } = await start();
    // a dead worker's lease, lapsing in 30 s, and a delayed row due in 5 s behind it
    await other.enqueue(request(1, clock.now()));
    expect(await other.claim({ ...claim, workerId: 'dead-worker' })).toHaveLength(1);
    const delayed = await other.enqueue(request(2, clock.now() + 5_000));
    await settleIdle(driver);
    await clock.advance(4_999);
    expect(driver.wake.skips(claim, served)).toBe(true);
    await clock.advance(1);
    // the delayed row fell due: the claim goes to Redis and takes it, long before the lease lapses
    expect(driver.wake.skips(claim, served)).toBe(false);
    expect((await driver.claim(claim)).map((r) => r.id)).toEqual([delayed.id]);
  });

  it("this driver's own promoteMany makes the queues its idle claims recorded stale at once", async () => {
    const { clock, driver, other } = await start();
    const row = await other.enqueue(request(3, clock.now() + 60_000));
    await settleIdle(driver);
    expect(await driver.introspect.promoteMany({ state: 'delayed', queue: QUEUE })).toEqual({
      affected: 1,
      remaining: 0,
    });
    expect(driver.wake.skips(claim, served)).toBe(false);
    expect((await driver.claim(claim)).map((r) => r.id)).toEqual([row.id]);
  });

  it("this driver's own requeueMany makes the queues its idle claims recorded stale at once", async () => {
    const { clock, driver, other } = await start();
    const row = await other.enqueue(request(4, clock.now()));
    const [taken] = await other.claim({ ...claim, workerId: 'other' });
    expect(await other.ack(row.id, claimOf(taken!))).toBe(true);
    await settleIdle(driver);
    expect(await driver.introspect.requeueMany({ state: 'done', queue: QUEUE })).toEqual({
      affected: 1,
      remaining: 0,
    });
    expect(driver.wake.skips(claim, served)).toBe(false);
    expect((await driver.claim(claim)).map((r) => r.id)).toEqual([row.id]);
  });

  it("this driver's own resumeQueue makes the queue its idle claims recorded stale at once", async () => {
    const { clock, driver, other } = await start();
    await other.introspect.pauseQueue(QUEUE);
    const row = await other.enqueue(request(5, clock.now()));
    await settleIdle(driver);
    await driver.introspect.resumeQueue(QUEUE);
    expect(driver.wake.skips(claim, served)).toBe(false);
    expect((await driver.claim(claim)).map((r) => r.id)).toEqual([row.id]);
  });
});
