import { packedRow } from '../test/packed-row';
import { createTestRedis, type TestRedis } from '../test/test-redis';
import { CLAIM_REPLY_FIELDS, LUA_CLAIM_PACK } from './lua/claim-pack.lua';
import { packedClaimedRow, type ClaimWritten } from './redis-claim-reply';

const written: ClaimWritten = { workerId: 'w-1', base: 'b', now: 1_000, leaseExpiresAt: 31_000 };
const id = '01a234e2-709b-7981-bc4f-ee77d9148975';

/** A row packed as the claim's packRow packs it; fields it does not answer are left out. */
function packed(values: Partial<Record<string, string>>): string {
  return packedRow(id, values);
}

const plain = {
  id,
  run: 'r',
  name: 'n',
  q: 'q',
  input: '{"n":1}',
  key: 'k',
  st: 'ready',
  att: '1',
  max: '3',
  pri: '0',
  at: '5',
  ca: '4',
  ua: '4',
};

describe('packedClaimedRow', () => {
  it('reads a packed row with what the claim wrote filled in, absent fields null and empty text kept', () => {
    const read = packedClaimedRow(packed({ ...plain, tp: '', fin: '9' }), 7, written);
    expect(read).toEqual({
      unreadable: false,
      row: expect.objectContaining({
        id,
        runId: 'r',
        queue: 'q',
        input: { n: 1 },
        tenantId: null,
        traceparent: '',
        finishedAt: 9,
        attempt: 2,
        state: 'running',
        workerId: 'w-1',
        claim: 'b:7',
        leaseExpiresAt: 31_000,
        updatedAt: 1_000,
      }),
    });
  });

  it('reads every field it answers from its position', () => {
    const values = Object.fromEntries(
      CLAIM_REPLY_FIELDS.map((field, i) => [field, field === 'input' ? '{"v":1}' : String(i + 2)]),
    );
    const read = packedClaimedRow(packed(values), 1, written);
    expect(read).toEqual({
      unreadable: false,
      row: {
        id,
        runId: '2',
        name: '3',
        queue: '4',
        input: { v: 1 },
        idempotencyKey: '6',
        tenantId: '7',
        enqueuedBy: '8',
        state: 'running',
        attempt: 10,
        maxAttempts: 10,
        priority: 11,
        runAt: 12,
        createdAt: 13,
        updatedAt: 1_000,
        workerId: 'w-1',
        claim: 'b:1',
        leaseExpiresAt: 31_000,
        lastError: '14',
        progress: 15,
        concurrencyKey: '16',
        traceparent: '17',
        finishedAt: 18,
        crossTenantReason: '19',
      },
    });
  });

  it('tells an absent field (null) from one stored empty, by the mask', () => {
    const read = packedClaimedRow(
      packed({ ...plain, ten: '', by: '', err: '', xr: '' }),
      1,
      written,
    );
    expect(read).toMatchObject({
      row: {
        tenantId: '',
        enqueuedBy: '',
        lastError: '',
        crossTenantReason: '',
        concurrencyKey: null,
      },
    });
    const none = packedClaimedRow(packed(plain), 1, written);
    expect(none).toMatchObject({
      row: { tenantId: null, enqueuedBy: null, lastError: null, progress: null, finishedAt: null },
    });
  });

  it('answers the id to read whole when a value holds a NUL, and nothing for text not so shaped', () => {
    expect(packedClaimedRow(packed({ ...plain, by: 'x\u0000y' }), 1, written)).toEqual({
      whole: id,
    });
    expect(packedClaimedRow(packed({ ...plain, by: 'x\u0000y\u0000z' }), 1, written)).toEqual({
      whole: id,
    });
    expect(packedClaimedRow('no separator', 1, written)).toBeUndefined();
    expect(packedClaimedRow(`99\u0000${id}`, 1, written)).toBeUndefined();
    expect(packedClaimedRow(`${id.length}\u0000${id}\u0000`, 1, written)).toBeUndefined();
    // a value too few: text not so shaped is never read as a row
    const short = packed(plain);
    expect(packedClaimedRow(short.slice(0, short.lastIndexOf('\u0000')), 1, written)).toEqual({
      whole: id,
    });
  });

  it('marks a stored input that is not JSON text unreadable, keeping the text', () => {
    const read = packedClaimedRow(packed({ ...plain, input: 'not json' }), 1, written);
    expect(read).toMatchObject({ unreadable: true, row: { input: 'not json' } });
  });
});

describe('packRow on the server, read back by packedClaimedRow', () => {
  let redis: TestRedis;
  beforeAll(() => {
    redis = createTestRedis();
  });
  afterAll(async () => {
    await redis?.drop();
  });

  /** packRow of a flat field/value list (as HGETALL answers it), run by the real server: its five answers. */
  const packRow = async (flat: string[]): Promise<unknown[]> =>
    (await redis.client.eval(
      `${LUA_CLAIM_PACK}\nreturn { packRow(ARGV, KEYS[1]) }`,
      1,
      id,
      ...flat,
    )) as unknown[];

  it('packs whatever order the hash holds its fields in, leaving out what the claim writes and unknown fields', async () => {
    const stored = { ...plain, tp: '', w: 'old', c: 'old:1', le: '5', zz: 'x', ten: 't' };
    const flat = Object.entries(stored).reverse().flat();
    const [text, st, name, q, att, max] = await packRow(flat);
    expect([st, name, q, att, max]).toEqual(['ready', 'n', 'q', '1', '3']);
    expect(text).toBe(packed({ ...plain, tp: '', ten: 't' }));
    expect(packedClaimedRow(String(text), 3, written)).toMatchObject({
      row: { tenantId: 't', traceparent: '', enqueuedBy: null, workerId: 'w-1', claim: 'b:3' },
    });
  });

  it('packs a row listed in the order the enqueue writes it (its first fields taken by place) as any other order', async () => {
    const stored = { ...plain, ten: 't', by: '', w: 'old', c: 'old:1', le: '5', err: 'e', pg: '1' };
    const inOrder = Object.entries(stored).flat();
    const [text, st, name, q, att, max] = await packRow(inOrder);
    expect([st, name, q, att, max]).toEqual(['ready', 'n', 'q', '1', '3']);
    expect(text).toBe(packed({ ...plain, ten: 't', by: '', err: 'e', pg: '1' }));
    expect(text).toBe((await packRow(Object.entries(stored).reverse().flat()))[0]);
    // a list that starts in the enqueue's order and then is not: read by name from where the order breaks
    const attLast = [...Object.entries(plain).filter(([f]) => f !== 'att'), ['att', '1']];
    const [moved, , , , movedAtt] = await packRow(attLast.flat());
    expect(movedAtt).toBe('1');
    expect(moved).toBe(packed(plain));
  });

  it('a NUL in a stored value makes the row one to read whole', async () => {
    const [text] = await packRow(Object.entries({ ...plain, err: 'a\u0000b' }).flat());
    expect(packedClaimedRow(String(text), 1, written)).toEqual({ whole: id });
  });
});
