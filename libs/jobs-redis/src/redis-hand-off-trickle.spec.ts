import { frozenClock, runJobs } from '@ultimat3/jobs/testing';
import { until } from '../../../test/until';
import { countingJob, testRedisSpec, wakeSlots } from '../test/redis-spec';
import { redisBackend } from './redis-backend';
import { redisJobDriver } from './redis-driver';
import { redisKeyPrefix } from './redis-keys';

const QUEUE = 'hand-off-trickle-q';
const NAME = 'redis-hand-off-trickle.noop';
const VT = 30_000;
const ROWS = 20;

const file = testRedisSpec();
/** A body that answers at once: its run completes (and acks) inside the hand-off's delivery. */
const { job: counted, ran, request } = countingJob(NAME, QUEUE);

/** The registration text of `wid` for the queue (see `LUA_HAND_OFF`), or null. */
const registration = (prefix: string, wid: string): Promise<string | null> =>
  file.redis.client.get(
    `${redisKeyPrefix(prefix)}q:${Buffer.byteLength(QUEUE)}:${QUEUE}:ho:${wid}`,
  );

describe('the Redis hand-off under a trickle of rows whose bodies answer at once', () => {
  const open = wakeSlots();

  it('delivers every row: the worker registers again after each run, with no poll (the clock never moves)', async () => {
    const prefix = file.redis.prefix();
    const clock = frozenClock();
    const backend = await redisBackend({ client: file.redis.client, prefix, clock });
    // one slot: a handed row takes the registration's last slot, so each row needs the worker to register again
    const h = await runJobs({
      jobs: [counted],
      driver: backend.driver,
      clock,
      installFacade: false,
      visibilityTimeoutMs: VT,
      concurrency: 1,
    });
    open.h = h;
    open.backend = backend;
    open.stopWake = backend.startWake(h.worker).stop;
    const other = redisJobDriver({ client: file.redis.client, prefix, clock });
    open.other = other;
    await until(() => h.worker.stats().wakeLive);
    const wid = h.worker.id;
    const handed: number[] = [];
    for (let n = 1; n <= ROWS; n++) {
      // registered again once the run's own claim came back empty: the idle the hand-off waits for
      await until(async () => (await registration(prefix, wid)) !== null).catch(() => {
        throw new Error(
          `row ${n}: the worker never registered again (${handed.length} rows handed before it)`,
        );
      });
      const { id } = await other.enqueue(request(n, clock.now()));
      await until(async () => (await other.get(id))?.state === 'done');
      // claimed for the worker inside the enqueue: its token is the hand-off's ('h'-led; the ack leaves it)
      const token = await file.redis.client.hget(`${redisKeyPrefix(prefix)}j:${id}`, 'c');
      if (token?.startsWith('h') === true) handed.push(n);
    }
    expect(handed).toHaveLength(ROWS);
    expect(ran.slice().sort((a, b) => a - b)).toEqual(handed);
  });
});
