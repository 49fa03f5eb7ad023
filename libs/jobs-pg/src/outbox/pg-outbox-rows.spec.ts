import { outboxRequest } from '@ultimat3/jobs/testing';
import { toBacklog, toQuarantined, toRecord } from './pg-outbox-rows';

describe('pg outbox rows', () => {
  it('reads a claimed row as a record, times in epoch ms', () => {
    const request = outboxRequest();
    expect(
      toRecord({
        id: request.id,
        request,
        staged_at: new Date(1_000),
        claimed_by: 'relay-a',
        claimed_at: new Date(2_000),
        attempts: 3,
        tx_key: '42',
      }),
    ).toEqual({
      id: request.id,
      request,
      stagedAt: 1_000,
      claimedBy: 'relay-a',
      claimedAt: 2_000,
      attempts: 3,
      txKey: '42',
    });
  });

  it('reads a quarantined row', () => {
    const request = outboxRequest();
    expect(
      toQuarantined({
        id: request.id,
        request,
        staged_at: new Date(1_000),
        quarantined_at: new Date(5_000),
        quarantine_code: 'X_OUTBOX_HELD_BEHIND',
        attempts: 0,
        last_error: 'held',
      }),
    ).toEqual({
      id: request.id,
      request,
      stagedAt: 1_000,
      quarantinedAt: 5_000,
      code: 'X_OUTBOX_HELD_BEHIND',
      attempts: 0,
      error: 'held',
    });
  });

  it('reads the backlog as numbers, and an empty one as none', () => {
    const text = {
      n: '2',
      oldest_staged_at: '1000',
      oldest_age_ms: '250',
    } as unknown as Parameters<typeof toBacklog>[0];
    expect(toBacklog(text)).toEqual({ count: 2, oldestStagedAt: 1_000, oldestAgeMs: 250 });
    expect(toBacklog({ n: 0, oldest_staged_at: null, oldest_age_ms: 9 })).toEqual({
      count: 0,
      oldestStagedAt: null,
      oldestAgeMs: 0,
    });
    expect(toBacklog(undefined)).toEqual({ count: 0, oldestStagedAt: null, oldestAgeMs: 0 });
  });
});
