import { frozenClock } from '../testing/frozen-clock';
import { MemoryOutboxTable } from './memory-outbox-table';
import { MemoryTx } from './memory-outbox-tx';
import { outboxRequest } from './testing/outbox-store.conformance';

const LEASE = { leaseMs: 30_000 };

describe('MemoryOutboxTable', () => {
  it('stages all or none, and a transaction only on commit', () => {
    const table = new MemoryOutboxTable(frozenClock());
    const [a, b] = [outboxRequest(), outboxRequest()];
    expect(() => table.stageAll([a, a], undefined)).toThrow(/is already staged/);
    expect(table.retained()).toBe(0);
    const tx = new MemoryTx(table);
    table.stageAll([a, b], tx);
    expect(() => table.stageAll([b], tx)).toThrow(/is already staged/);
    expect(table.retained()).toBe(0);
    tx.commit();
    expect(table.retained()).toBe(2);
    expect(() => table.stageAll([outboxRequest()], tx)).toThrow(
      /memory outbox tx is already committed/,
    );
    // a finished transaction is named as such even for a request it already staged
    expect(() => table.stageAll([a], tx)).toThrow(/memory outbox tx is already committed/);
  });

  it('refuses the second of two transactions that staged one request, landing none of its rows', () => {
    const table = new MemoryOutboxTable(frozenClock());
    const [shared, own] = [outboxRequest(), outboxRequest()];
    const first = new MemoryTx(table);
    const second = new MemoryTx(table);
    table.stageAll([shared], first);
    table.stageAll([own, { ...shared, name: 'second.copy' }], second);
    first.commit();
    expect(() => second.commit()).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT', message: expect.stringContaining(shared.id) }),
    );
    expect(second.state).toBe('rolled-back');
    const claimed = table.claim({ claimant: 'r', limit: 10, ...LEASE });
    expect(claimed.map((r) => [r.id, r.request.name])).toEqual([[shared.id, shared.name]]);
  });

  it('refuses at stage time, as the unique index does, a request another transaction already committed', () => {
    const table = new MemoryOutboxTable(frozenClock());
    const landed = outboxRequest();
    table.stageAll([landed], undefined);
    const tx = new MemoryTx(table);
    expect(() => table.stageAll([{ ...landed, name: 'copy' }], tx)).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT', message: expect.stringContaining(landed.id) }),
    );
    expect(tx.staged).toEqual([]);
    const claimed = table.claim({ claimant: 'r', limit: 10, ...LEASE });
    expect(claimed.map((r) => [r.id, r.request.name])).toEqual([[landed.id, landed.name]]);
  });

  it("refuses another store's transaction: its rows would land there, checked against this one", () => {
    const table = new MemoryOutboxTable(frozenClock());
    const other = new MemoryOutboxTable(frozenClock());
    const foreign = new MemoryTx(other);
    expect(() => table.stageAll([outboxRequest()], foreign)).toThrow(
      expect.objectContaining({
        code: 'X_INVARIANT',
        message: expect.stringContaining('begun on another memory outbox store'),
      }),
    );
    foreign.commit();
    expect(table.retained() + other.retained()).toBe(0);
  });

  it('claims in staging order and never past an unclaimed earlier row of the same transaction', () => {
    const table = new MemoryOutboxTable(frozenClock());
    const group = {};
    const [first, second, loose] = [outboxRequest(), outboxRequest(), outboxRequest()];
    table.stageAll([first, second], group);
    table.stageAll([loose], undefined);
    const claimed = table.claim({ claimant: 'a', limit: 1, ...LEASE });
    expect(claimed.map((r) => r.id)).toEqual([first.id]);
    // `second` waits behind `first`, leased to a; `loose` is another transaction's
    expect(table.claim({ claimant: 'b', limit: 10, ...LEASE }).map((r) => r.id)).toEqual([
      loose.id,
    ]);
    expect(table.markPublished([first.id], 'b')).toBe(0); // fenced on the claimant
    expect(table.markPublished([first.id], 'a')).toBe(1);
    expect(table.claim({ claimant: 'b', limit: 10, ...LEASE }).map((r) => r.id)).toEqual([
      second.id,
    ]);
  });

  it('records a failure on release, quarantines with the rows held behind, and restores', async () => {
    const clock = frozenClock();
    const table = new MemoryOutboxTable(clock);
    const group = {};
    const [first, second] = [outboxRequest(), outboxRequest()];
    table.stageAll([first, second], group);
    table.claim({ claimant: 'a', limit: 10, ...LEASE });
    expect(table.release([first.id, second.id], 'a', { id: first.id, error: 'down' })).toBe(2);
    const [again] = table.claim({ claimant: 'a', limit: 1, ...LEASE });
    expect(again).toMatchObject({ id: first.id, attempts: 1 });
    await clock.advance(1_000);
    expect(table.quarantine(first.id, 'a', 'still down')).toEqual([first.id, second.id]);
    expect(table.quarantine(first.id, 'a', 'again')).toEqual([]);
    expect(table.retained()).toBe(0);
    expect(table.backlog()).toEqual({ count: 0, oldestStagedAt: null, oldestAgeMs: 0 });
    expect(table.quarantined(undefined).map((q) => [q.id, q.code, q.attempts, q.error])).toEqual([
      [first.id, 'X_OUTBOX_QUARANTINED', 2, 'still down'],
      [second.id, 'X_OUTBOX_HELD_BEHIND', 0, `held behind quarantined row ${first.id}`],
    ]);
    expect(() => table.quarantined(0)).toThrow(expect.objectContaining({ code: 'X_INVARIANT' }));
    expect(table.restore([first.id, first.id, second.id, 'nope'])).toBe(2);
    expect(table.claim({ claimant: 'b', limit: 10, ...LEASE })).toMatchObject([
      { id: first.id, attempts: 0 },
      { id: second.id, attempts: 0 },
    ]);
    expect(table.backlog()).toMatchObject({ count: 2, oldestAgeMs: 1_000 });
  });
});
