import { errorCodeOf } from '@ultimat3/jobs';
import { testRedisUrl } from '../test/test-redis';
import { redisBackend } from './redis-backend';

/** The longest delay a Node timer keeps (2^31-1 ms); a longer one fires after 1 ms. */
const LONGEST_TIMER_MS = 2_147_483_647;

describe('redis connectTimeoutMs out of range', () => {
  it('the longest a timer can wait boots (the PING is not given up at once)', async () => {
    const backend = await redisBackend({ url: testRedisUrl(), connectTimeoutMs: LONGEST_TIMER_MS });
    await backend.close();
  });

  it.each([LONGEST_TIMER_MS + 1, 0, -5, Number.NaN, Number.POSITIVE_INFINITY])(
    '%p is refused before anything connects, not failed as a timeout',
    async (connectTimeoutMs) => {
      const error = await redisBackend({ url: testRedisUrl(), connectTimeoutMs }).catch(
        (e: unknown) => e,
      );
      expect(errorCodeOf(error)).toBe('X_INVARIANT');
      expect(error).toMatchObject({ fix: expect.stringContaining('connectTimeoutMs') });
    },
  );
});

describe('redisBackend without one source', () => {
  it.each([{}, { url: testRedisUrl(), client: 'both' }, undefined, null])(
    '%p is refused as X_INVARIANT naming redisBackend before anything connects',
    async (options) => {
      const error = await redisBackend(options as never).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'X_INVARIANT',
        message: expect.stringMatching(/^redisBackend: pass exactly one of client and url\./),
        fix: expect.stringContaining('{ url:'),
      });
    },
  );
});
