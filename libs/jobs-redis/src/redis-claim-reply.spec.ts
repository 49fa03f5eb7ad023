import { CLAIM_REPLY_FIELDS } from './lua/claim.lua';
import { KEPT_BY_SHAPE, packedClaimedRow, type ClaimWritten } from './redis-claim-reply';

const written: ClaimWritten = { workerId: 'w-1', base: 'b', now: 1_000, leaseExpiresAt: 31_000 };
const id = '01a234e2-709b-7981-bc4f-ee77d9148975';

/** A row packed as LUA_CLAIM packs it: the key id, the entry count, then the hash's flat field/value list. */
function packed(values: Partial<Record<string, string>>): string {
  const flat = Object.entries(values).flatMap(([field, v]) => (v === undefined ? [] : [field, v]));
  return `${id.length}:${id}\u0000${flat.length}\u0000${flat.join('\u0000')}`;
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

  it('reads every field it answers from its stored name, whatever order the hash holds them in', () => {
    const values = Object.fromEntries(
      CLAIM_REPLY_FIELDS.map((field, i) => [field, field === 'input' ? '{"v":1}' : String(i + 1)]),
    );
    const reversed = Object.fromEntries(Object.entries({ ...values, id }).reverse());
    const read = packedClaimedRow(packed(reversed), 1, written);
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

  it('tells every answered field by its shape, and passes over fields of the same shape but another name', () => {
    expect(KEPT_BY_SHAPE.size).toBe(CLAIM_REPLY_FIELDS.length);
    const read = packedClaimedRow(
      packed({ ...plain, rux: 'x', qq: 'y', kez: 'z', '': 'e' }),
      1,
      written,
    );
    expect(read).toMatchObject({ row: { runId: 'r', queue: 'q', idempotencyKey: 'k' } });
  });

  it('keeps what the claim wrote over stale stored state, worker, claim and lease', () => {
    const read = packedClaimedRow(
      packed({ ...plain, st: 'done', w: 'old', c: 'old:1', le: '5', ua: '3' }),
      2,
      written,
    );
    expect(read).toMatchObject({
      row: {
        state: 'running',
        workerId: 'w-1',
        claim: 'b:2',
        leaseExpiresAt: 31_000,
        updatedAt: 1_000,
      },
    });
  });

  it('answers the id to read whole when a value holds a NUL, and nothing for text not so shaped', () => {
    expect(packedClaimedRow(packed({ ...plain, by: 'x\u0000y' }), 1, written)).toEqual({
      whole: id,
    });
    expect(packedClaimedRow(packed({ ...plain, by: 'x\u0000y\u0000z' }), 1, written)).toEqual({
      whole: id,
    });
    expect(packedClaimedRow('no colon', 1, written)).toBeUndefined();
    expect(packedClaimedRow(`99:${id}`, 1, written)).toBeUndefined();
    expect(packedClaimedRow(`${id.length}:${id}\u0000`, 1, written)).toBeUndefined();
  });

  it('marks a stored input that is not JSON text unreadable, keeping the text', () => {
    const read = packedClaimedRow(packed({ ...plain, input: 'not json' }), 1, written);
    expect(read).toMatchObject({ unreadable: true, row: { input: 'not json' } });
  });
});
