import { frozenClock } from '@ultimat3/jobs/testing';
import { orderedRequests } from '../../jobs/test/requests';
import { testRedisSpec } from '../test/redis-spec';
import { claimRows } from './redis-claim';
import { redisContext, type RedisContext } from './redis-context';
import { redisJobDriver } from './redis-driver';
import { redisKeyPrefix } from './redis-keys';
import { RescueCursors } from './redis-rescue-cursors';

const file = testRedisSpec();

const request = orderedRequests({ name: 'redis.job', queue: 'q', input: { n: 1 }, runAt: 0 });
const claimArgs = {
  workerId: 'w',
  visibilityTimeoutMs: 30_000,
  slots: [{ queue: 'q', limit: 10 }],
};

/**
 * A context on a connection of its own that Redis drops right after the claim script answered: the burial of an
 * unreadable row that follows finds Redis out of reach.
 */
async function droppedAfterClaim(
  prefix: string,
): Promise<{ ctx: RedisContext; dropped: () => boolean }> {
  const client = file.redis.client.duplicate();
  await client.ping();
  const inner = redisContext(client, redisKeyPrefix(prefix), frozenClock());
  let dropped = false;
  const ctx: RedisContext = {
    ...inner,
    run: async (name, argv) => {
      const reply = await inner.run(name, argv);
      if (name === 'claim') {
        client.disconnect();
        dropped = true;
      }
      return reply;
    },
  };
  return { ctx, dropped: () => dropped };
}

describe('a Redis claim whose burial of an unreadable row fails', () => {
  it.each([
    ['a claim', false],
    ['a rescuing claim', true],
  ])(
    '%s still answers the good rows it took; the unreadable row stays leased for the rescue',
    async (_, rescuing) => {
      const prefix = file.redis.prefix();
      const driver = redisJobDriver({ client: file.redis.client, prefix, clock: frozenClock() });
      const damaged = request({ runAt: 0 });
      const good = request({ runAt: 1 });
      await driver.enqueueMany([damaged, good]);
      await file.redis.client.hset(`{${prefix}}:j:${damaged.id}`, 'input', '{"n": corrupt');

      const { ctx, dropped } = await droppedAfterClaim(prefix);
      const result = await claimRows(
        ctx,
        claimArgs,
        rescuing ? { request: {}, cursors: new RescueCursors() } : undefined,
      );
      expect(dropped()).toBe(true);
      // the good row reaches the worker, as claimed: it is not stranded running under a claim nobody holds
      expect(result.claimed.map((row) => row.id)).toEqual([good.id]);
      expect(await driver.get(good.id)).toMatchObject({
        state: 'running',
        attempt: 1,
        claim: result.claimed[0]!.claim,
      });
      // the burial did not land: the row stays leased, so its lease lapses and the rescue takes it again
      expect(await driver.get(damaged.id)).toMatchObject({ state: 'running', attempt: 1 });
    },
  );

  it('a claimed row that cannot be read whole (Redis gone mid-way) is left leased; the others are answered', async () => {
    const prefix = file.redis.prefix();
    const driver = redisJobDriver({ client: file.redis.client, prefix, clock: frozenClock() });
    const odd = request({ runAt: 0 });
    const good = request({ runAt: 1 });
    await driver.enqueueMany([odd, good]);
    // a NUL in a stored value (written around the driver): the row is read whole after the claim
    await file.redis.client.hset(`{${prefix}}:j:${odd.id}`, 'by', 'x\u0000y');

    const { ctx } = await droppedAfterClaim(prefix);
    const result = await claimRows(ctx, claimArgs, undefined);
    expect(result.claimed.map((row) => row.id)).toEqual([good.id]);
    expect(await driver.get(odd.id)).toMatchObject({ state: 'running', attempt: 1 });
  });

  it('a claim that took only unreadable rows fails with the burial error (the worker logs jobs.claim.failed)', async () => {
    const prefix = file.redis.prefix();
    const driver = redisJobDriver({ client: file.redis.client, prefix, clock: frozenClock() });
    const damaged = request({ runAt: 0 });
    await driver.enqueue(damaged);
    await file.redis.client.hset(`{${prefix}}:j:${damaged.id}`, 'input', 'not json');

    const { ctx } = await droppedAfterClaim(prefix);
    await expect(claimRows(ctx, claimArgs, undefined)).rejects.toThrow(/Connection is closed/);
  });

  it('a burial that fails for one row still buries the next', async () => {
    const prefix = file.redis.prefix();
    const driver = redisJobDriver({ client: file.redis.client, prefix, clock: frozenClock() });
    const first = request({ runAt: 0 });
    const second = request({ runAt: 1 });
    const good = request({ runAt: 2 });
    await driver.enqueueMany([first, second, good]);
    for (const r of [first, second])
      await file.redis.client.hset(`{${prefix}}:j:${r.id}`, 'input', 'not json');

    // once the claim answered, the first row's key is overwritten with a string: its burial is refused by the
    // server (WRONGTYPE, a script error), the second one's lands
    const inner = redisContext(file.redis.client, redisKeyPrefix(prefix), frozenClock());
    const ctx: RedisContext = {
      ...inner,
      run: async (name, argv) => {
        const reply = await inner.run(name, argv);
        if (name === 'claim') await file.redis.client.set(`{${prefix}}:j:${first.id}`, 'gone');
        return reply;
      },
    };
    const result = await claimRows(ctx, claimArgs, undefined);
    expect(result.claimed.map((row) => row.id)).toEqual([good.id]);
    expect(await file.redis.client.get(`{${prefix}}:j:${first.id}`)).toBe('gone');
    expect(await driver.get(second.id)).toMatchObject({
      state: 'dead',
      lastError: 'X_JOB_INPUT_INVALID: the stored input of job redis.job is not JSON text',
    });
  });
});
