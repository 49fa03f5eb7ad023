import { MAX_FREE_TEXT_LENGTH } from '../values/bounds';
import {
  before,
  cloneRequest,
  quarantinedOf,
  quarantineRow,
  recordOf,
  type MemoryOutboxRow,
} from './memory-outbox-row';
import { outboxRequest } from './testing/outbox-store.conformance';

function row(overrides: Partial<MemoryOutboxRow> = {}): MemoryOutboxRow {
  const request = outboxRequest();
  return {
    id: request.id,
    request,
    stagedAt: 1_000,
    seq: 0,
    group: {},
    claimedBy: null,
    claimedAt: null,
    attempts: 0,
    lastError: null,
    quarantinedAt: null,
    quarantineCode: null,
    ...overrides,
  };
}

describe('memory outbox rows', () => {
  it('orders by stagedAt, then staging order', () => {
    expect(before(row({ stagedAt: 1 }), row({ stagedAt: 2, seq: 0 }))).toBe(true);
    expect(before(row({ seq: 1 }), row({ seq: 2 }))).toBe(true);
    expect(before(row({ seq: 2 }), row({ seq: 1 }))).toBe(false);
    expect(before(row({ seq: 1 }), row({ seq: 1 }))).toBe(false);
  });

  it('clones a request through JSON text', () => {
    const request = outboxRequest();
    const copy = cloneRequest(request);
    expect(copy).toEqual(request);
    expect(copy).not.toBe(request);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(request));
  });

  it('hands a claimed row out as a record, one txKey per transaction object', () => {
    const group = {};
    const a = row({ group, claimedBy: 'relay', claimedAt: 5, attempts: 2 });
    const b = row({ group });
    const other = row();
    const record = recordOf(a);
    expect(record).toEqual({
      id: a.id,
      request: a.request,
      stagedAt: 1_000,
      claimedBy: 'relay',
      claimedAt: 5,
      attempts: 2,
      txKey: expect.stringMatching(/^memory-tx-\d+$/),
    });
    expect(record.request).not.toBe(a.request);
    expect(recordOf(b).txKey).toBe(record.txKey);
    expect(recordOf(other).txKey).not.toBe(record.txKey);
    expect(recordOf(b)).toMatchObject({ claimedBy: '', claimedAt: 0 });
  });

  it('quarantines a row out of the claim, its error bounded, and reads it back', () => {
    const r = row({ claimedBy: 'relay', claimedAt: 5, attempts: 3 });
    quarantineRow(r, 9_000, 'X_OUTBOX_HELD_BEHIND', 'x'.repeat(MAX_FREE_TEXT_LENGTH + 10));
    expect(r).toMatchObject({ claimedBy: null, claimedAt: null, quarantinedAt: 9_000 });
    expect(quarantinedOf(r)).toEqual({
      id: r.id,
      request: r.request,
      stagedAt: 1_000,
      quarantinedAt: 9_000,
      code: 'X_OUTBOX_HELD_BEHIND',
      attempts: 3,
      error: expect.any(String),
    });
    expect(quarantinedOf(r).error!.length).toBeLessThanOrEqual(MAX_FREE_TEXT_LENGTH);
    expect(quarantinedOf(row())).toMatchObject({ quarantinedAt: 0, code: 'X_OUTBOX_QUARANTINED' });
  });
});
