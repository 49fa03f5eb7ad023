import { testRedisSpec } from '../test/redis-spec';
import { redisContext } from './redis-context';
import { HandOffRegistration } from './redis-hand-off-registration';
import { HAND_OFF_STOP } from './redis-hand-off-reply';
import { redisKeyPrefix } from './redis-keys';

const WORKER = 'reg-worker';
const VT = 30_000;
const TTL = 20_000;

const file = testRedisSpec();

/** One deployment's hand-off keys for `WORKER` (see `LUA_HAND_OFF`). */
function keysOf(prefix: string) {
  const q = (queue: string): string => `${prefix}q:${Buffer.byteLength(queue)}:${queue}`;
  return {
    set: (queue: string) => `${q(queue)}:ho`,
    registration: (queue: string) => `${q(queue)}:ho:${WORKER}`,
    list: `${prefix}hl:${WORKER}`,
  };
}

describe('HandOffRegistration', () => {
  let prefix: string;
  let registration: HandOffRegistration;
  beforeEach(() => {
    prefix = redisKeyPrefix(file.redis.prefix());
    const ctx = redisContext(file.redis.client, prefix);
    registration = new HandOffRegistration(
      ctx,
      ctx,
      { workerId: WORKER, visibilityTimeoutMs: VT },
      TTL,
    );
  });

  /** The worker's registration of `queue` (undefined: none) and whether it is a member of the queue's set. */
  async function registered(queue: string): Promise<[string | undefined, boolean]> {
    const k = keysOf(prefix);
    const value = await file.redis.client.get(k.registration(queue));
    const member = await file.redis.client.zscore(k.set(queue), WORKER);
    return [value ?? undefined, member !== null];
  }

  it('registers each queue offered for its ttl, and deregisters one no longer offered', async () => {
    expect(registration.any).toBe(false);
    const waiting = await registration.register([
      { queue: 'a', free: 2, names: ['x', 'y'] },
      { queue: 'b', free: 1, names: ['z'] },
    ]);
    expect(waiting).toBe(0);
    expect(registration.any).toBe(true);
    expect(await registered('a')).toEqual([`2|${VT}|\u0000x\u0000y\u0000`, true]);
    expect(await registered('b')).toEqual([`1|${VT}|\u0000z\u0000`, true]);
    const ttl = await file.redis.client.pttl(keysOf(prefix).registration('a'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(TTL);

    await registration.register([{ queue: 'b', free: 3, names: ['z'] }]);
    expect(await registered('a')).toEqual([undefined, false]);
    expect(await registered('b')).toEqual([`3|${VT}|\u0000z\u0000`, true]);
  });

  it('leaves every queue ever registered, answering what was on the list, with the stop marker when asked', async () => {
    const k = keysOf(prefix);
    await registration.register([{ queue: 'a', free: 2, names: ['x'] }]);
    await registration.register([{ queue: 'b', free: 2, names: ['x'] }]);
    // 'a' was dropped by the second registration; one sent meanwhile by another turn would have landed again
    await file.redis.client.set(k.registration('a'), `2|${VT}|*`, 'PX', TTL);
    await file.redis.client.zadd(k.set('a'), 0, WORKER);
    await file.redis.client.rpush(k.list, 'first', 'second');

    expect(await registration.leave(true)).toEqual(['first', 'second']);
    expect(registration.any).toBe(false);
    expect(await registered('a')).toEqual([undefined, false]);
    expect(await registered('b')).toEqual([undefined, false]);
    expect(await file.redis.client.lrange(k.list, 0, -1)).toEqual([HAND_OFF_STOP]);

    await file.redis.client.del(k.list);
    expect(await registration.leave(false)).toEqual([]);
    expect(await file.redis.client.exists(k.list)).toBe(0);
  });

  it('counts the rows still on the list off each free count', async () => {
    await file.redis.client.rpush(keysOf(prefix).list, 'handed');
    expect(
      await registration.register([
        { queue: 'a', free: 2, names: ['x'] },
        { queue: 'b', free: 1, names: ['x'] },
      ]),
    ).toBe(1);
    expect(await registered('a')).toEqual([`1|${VT}|\u0000x\u0000`, true]);
    expect(await registered('b')).toEqual([undefined, false]);
  });

  it('after a lost answer, counts every queue ever registered as registered: the next registration drops the rest', async () => {
    const k = keysOf(prefix);
    await registration.register([{ queue: 'a', free: 1, names: ['x'] }]);
    await registration.register([{ queue: 'b', free: 1, names: ['x'] }]);
    // the registration of 'a' whose answer was lost landed after all
    await file.redis.client.set(k.registration('a'), `1|${VT}|*`, 'PX', TTL);
    await file.redis.client.zadd(k.set('a'), 0, WORKER);
    await registration.register([{ queue: 'b', free: 1, names: ['x'] }]);
    expect(await registered('a')).toEqual([`1|${VT}|*`, true]);

    registration.answerLost();
    await registration.register([{ queue: 'b', free: 1, names: ['x'] }]);
    expect(await registered('a')).toEqual([undefined, false]);
    expect(await registered('b')).toEqual([`1|${VT}|\u0000x\u0000`, true]);
  });
});
