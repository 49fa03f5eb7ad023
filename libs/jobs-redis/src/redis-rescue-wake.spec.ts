import { frozenClock, runJobs } from '@ultimat3/jobs/testing';
import { until } from '../../../test/until';
import { countingJob, io, testRedisSpec, wakeSlots } from '../test/redis-spec';
import { redisBackend } from './redis-backend';
import { redisJobDriver } from './redis-driver';

const QUEUE = 'rescue-wake-q';
const VT = 30_000;

const file = testRedisSpec();
const { job: rescuedJob, ran, request } = countingJob('redis-rescue-wake.noop', QUEUE);

/**
 * `driver.rescue()` on Redis wakes idle workers: the rows it makes waiting again are announced on the deployment's wake
 * channel (as a claim's own rescue does), so an idle worker whose claims are skipped while nothing is announced picks
 * a rescued row up at once, not at its next poll.
 */
describe('a Redis rescue wakes idle workers', () => {
  const open = wakeSlots();

  it("an idle worker runs a row another process's rescue made claimable, with its own clock standing still", async () => {
    const { redis } = file;
    const prefix = redis.prefix();
    // the other process (an operator tool): its own clock, which it moves past the dead worker's lease
    const otherClock = frozenClock();
    const other = redisJobDriver({ client: redis.client, prefix, clock: otherClock });
    open.other = other;
    await other.enqueue(request(1, otherClock.now()));
    const [held] = await other.claim({
      workerId: 'dead-worker',
      visibilityTimeoutMs: VT,
      slots: [{ queue: QUEUE, limit: 1 }],
    });
    expect(held?.input).toEqual({ n: 1 });

    // the idle worker: by its clock the lease holds for 30 s more, so its own claims rescue nothing and, while the
    // wake is live, its polls are answered without Redis until then
    const clock = frozenClock(otherClock.now());
    const backend = await redisBackend({ client: redis.client, prefix, clock });
    open.backend = backend;
    const harness = await runJobs({
      jobs: [rescuedJob],
      driver: backend.driver,
      clock,
      installFacade: false,
      visibilityTimeoutMs: VT,
    });
    open.h = harness;
    open.stopWake = backend.startWake(harness.worker).stop;
    await until(() => harness.worker.stats().wakeLive);
    for (let s = 0; s < 5; s++) {
      await harness.advance(1_000);
      await io();
    }
    expect(ran).not.toContain(1);
    const claimsBefore = harness.worker.stats().claims;

    await otherClock.advance(VT);
    expect(await other.rescue({ slots: [{ queue: QUEUE }], visibilityTimeoutMs: VT })).toEqual({
      buried: [],
    });
    // the worker's clock never moves again: no poll can fire, only the announcement starts the pass
    await until(() => ran.includes(1));
    expect(harness.worker.stats().claims).toBeGreaterThan(claimsBefore);
    expect(await other.get(held!.id)).toMatchObject({ state: 'done', attempt: 2 });
  });

  it("this driver's own rescue makes the queues its idle claims recorded stale at once", async () => {
    const { redis } = file;
    const prefix = redis.prefix();
    const clock = frozenClock();
    const backend = await redisBackend({ client: redis.client, prefix, clock });
    open.backend = backend;
    const { driver } = backend;
    const claim = {
      workerId: 'w',
      visibilityTimeoutMs: VT,
      slots: [{ queue: QUEUE, limit: 1, names: [rescuedJob.name] }],
    };
    const served = new Map([[QUEUE, [rescuedJob.name]]]);
    open.stopWake = driver.wake.listen({
      signalEnqueued: () => undefined,
      setWakeLive: () => undefined,
    });
    await until(() => driver.wake.live);
    expect(await driver.claim(claim)).toEqual([]);
    // the empty claim recorded the queue idle: the next is answered without Redis
    expect(driver.wake.skips(claim, served)).toBe(true);
    await driver.rescue({ slots: [{ queue: QUEUE }], visibilityTimeoutMs: VT });
    expect(driver.wake.skips(claim, served)).toBe(false);
  });
});
