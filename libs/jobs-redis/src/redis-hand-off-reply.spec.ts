import { packedRow } from '../test/packed-row';
import { createTestRedis, type TestRedis } from '../test/test-redis';
import { redisContext, type RedisContext } from './redis-context';
import { handedRows, HAND_OFF_STOP, type HandedRows } from './redis-hand-off-reply';
import { redisKeyPrefix } from './redis-keys';

const ids = {
  a: '01a234e2-709b-7981-bc4f-ee77d9148971',
  b: '01a234e2-709b-7981-bc4f-ee77d9148972',
  c: '01a234e2-709b-7981-bc4f-ee77d9148973',
};

/** A row's stored fields (what the hash holds), by the names the claim's packing answers. */
const stored = (id: string, extra: Record<string, string> = {}): Record<string, string> => ({
  id,
  run: `run-${id}`,
  name: 'n',
  q: 'q',
  input: '{"n":1}',
  key: `k-${id}`,
  att: '0',
  max: '3',
  pri: '0',
  at: '5',
  ca: '4',
  ...extra,
});

/** A handed entry as `LUA_HAND_OFF` pushes it: token base, server now, lease expiry, then the row packed. */
function entry(values: Record<string, string>): string {
  return `base\u00001000\u000031000\u0000${packedRow(values.id ?? '', values)}`;
}

describe('handedRows', () => {
  let redis: TestRedis;
  let ctx: RedisContext;
  beforeAll(() => {
    redis = createTestRedis();
    ctx = redisContext(redis.client, redisKeyPrefix(redis.prefix()));
  });
  afterAll(async () => {
    await redis?.drop();
  });

  it('answers entries read alone at once, no promise: in their order, the stop marker and junk passed over', () => {
    const read = handedRows(ctx, 'w-1', [
      entry(stored(ids.a)),
      HAND_OFF_STOP,
      'not an entry',
      7,
      entry(stored(ids.b, { input: 'not json' })),
    ]);
    expect(read).not.toBeInstanceOf(Promise);
    const { rows, unreadable } = read as HandedRows;
    expect(rows).toEqual([
      expect.objectContaining({
        id: ids.a,
        input: { n: 1 },
        workerId: 'w-1',
        claim: 'base:1',
        updatedAt: 1000,
        leaseExpiresAt: 31000,
        attempt: 1,
      }),
    ]);
    expect(unreadable).toEqual([expect.objectContaining({ id: ids.b, input: 'not json' })]);
  });

  it('reads a row whose packed text holds a NUL whole from its hash, through a promise, the order kept', async () => {
    const withNul = stored(ids.b, { err: 'x\u0000y' });
    await redis.client.hset(`${ctx.prefix}j:${ids.b}`, {
      ...withNul,
      st: 'running',
      att: '1',
      ua: '1000',
      w: 'w-1',
      c: 'base:1',
      le: '31000',
    });
    const read = handedRows(ctx, 'w-1', [
      entry(stored(ids.a)),
      entry(withNul),
      entry(stored(ids.c)),
    ]);
    expect(read).toBeInstanceOf(Promise);
    const { rows, unreadable } = await read;
    expect(rows.map((row) => row.id)).toEqual([ids.a, ids.b, ids.c]);
    expect(rows[1]).toMatchObject({ lastError: 'x\u0000y', claim: 'base:1', workerId: 'w-1' });
    expect(unreadable).toEqual([]);
  });
});
