import { CLAIM_MARKED_FIELDS, CLAIM_REPLY_FIELDS } from './lua/claim.lua';
import { PACKED_VALUE_ORDER, packedClaimedRow, type ClaimWritten } from './redis-claim-reply';

const written: ClaimWritten = { workerId: 'w-1', base: 'b', now: 1_000, leaseExpiresAt: 31_000 };
const id = '01a234e2-709b-7981-bc4f-ee77d9148975';

/** A row packed as LUA_CLAIM packs it: `values` by field, the marked ones '='-prefixed when present. */
function packed(values: Partial<Record<string, string>>): string {
  const parts = CLAIM_REPLY_FIELDS.slice(1).map((field) => {
    const v = values[field];
    if (v === undefined) return '';
    return CLAIM_MARKED_FIELDS.has(field) ? `=${v}` : v;
  });
  return `${id.length}:${id}\u0000${parts.join('\u0000')}`;
}

const plain = {
  run: 'r',
  name: 'n',
  q: 'q',
  input: '{"n":1}',
  key: 'k',
  att: '2',
  max: '3',
  pri: '0',
  at: '5',
  ca: '4',
};

describe('packedClaimedRow', () => {
  it('reads the values in the order the claim script packs them', () => {
    expect(PACKED_VALUE_ORDER).toEqual(CLAIM_REPLY_FIELDS.slice(1));
  });

  it('reads a packed row with what the claim wrote filled in, absent marked fields null and empty text kept', () => {
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

  it('answers the id to read whole when a value holds a NUL, and nothing for text not so shaped', () => {
    expect(packedClaimedRow(packed({ ...plain, by: 'x\u0000y' }), 1, written)).toEqual({
      whole: id,
    });
    expect(packedClaimedRow('no colon', 1, written)).toBeUndefined();
    expect(packedClaimedRow(`99:${id}`, 1, written)).toBeUndefined();
  });

  it('marks a stored input that is not JSON text unreadable, keeping the text', () => {
    const read = packedClaimedRow(packed({ ...plain, input: 'not json' }), 1, written);
    expect(read).toMatchObject({ unreadable: true, row: { input: 'not json' } });
  });
});
