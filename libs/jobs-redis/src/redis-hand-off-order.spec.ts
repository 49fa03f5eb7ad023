import { frozenClock } from '@ultimat3/jobs/testing';
import { countingJob, testRedisSpec } from '../test/redis-spec';
import { redisJobDriver, type RedisJobDriver } from './redis-driver';
import { redisKeyPrefix } from './redis-keys';

const QUEUE = 'hand-off-order-q';
const NAME = 'redis-hand-off-order.noop';
const VT = 30_000;

const file = testRedisSpec();
const { request } = countingJob(NAME, QUEUE);

/** Registers `wid` for `names` of the queue as a worker that never pops (a process that died right after registering). */
async function registerGhost(prefix: string, wid: string, names: readonly string[]): Promise<void> {
  const q = `${redisKeyPrefix(prefix)}q:${Buffer.byteLength(QUEUE)}:${QUEUE}`;
  const text = `\u0000${names.join('\u0000')}\u0000`;
  await file.redis.client.set(`${q}:ho:${wid}`, `5|${VT}|${text}`, 'PX', 60_000);
  await file.redis.client.zadd(`${q}:ho`, 0, wid);
}

/**
 * The hand-off gives a fresh row only to a worker that serves its name, and only when a claim would take that row
 * next: never past a row of the queue that came due earlier, even one still in the delayed set (a delayed row is
 * promoted by the next claim, not when its time comes).
 */
describe('the Redis hand-off: which rows it gives', () => {
  let other: RedisJobDriver | undefined;
  afterEach(async () => {
    await other?.close();
    other = undefined;
  });

  it('hands nothing past a delayed row whose run time came, and the next claim takes that row first', async () => {
    const prefix = file.redis.prefix();
    const clock = frozenClock();
    other = redisJobDriver({ client: file.redis.client, prefix, clock });
    const earlier = await other.enqueue(request(1, clock.now() + 1_000));
    await clock.advance(1_000);
    await registerGhost(prefix, 'ghost', [NAME]);
    const fresh = await other.enqueue(request(2, clock.now()));
    expect(await other.get(fresh.id)).toMatchObject({ state: 'ready', attempt: 0 });
    const taken = await other.claim({
      workerId: 'w',
      visibilityTimeoutMs: VT,
      slots: [{ queue: QUEUE, limit: 1 }],
    });
    expect(taken.map((r) => r.id)).toEqual([earlier.id]);
  });

  it('hands a row to no worker that does not serve its name', async () => {
    const prefix = file.redis.prefix();
    const clock = frozenClock();
    other = redisJobDriver({ client: file.redis.client, prefix, clock });
    await registerGhost(prefix, 'ghost', ['redis-hand-off-order.other']);
    const fresh = await other.enqueue(request(3, clock.now()));
    expect(await other.get(fresh.id)).toMatchObject({ state: 'ready', attempt: 0 });
    // a worker serving it is handed the next one
    await registerGhost(prefix, 'ghost-2', [NAME]);
    await other.claim({
      workerId: 'w',
      visibilityTimeoutMs: VT,
      slots: [{ queue: QUEUE, limit: 1 }],
    });
    const next = await other.enqueue(request(4, clock.now()));
    expect(await other.get(next.id)).toMatchObject({ state: 'running', workerId: 'ghost-2' });
  });
});
