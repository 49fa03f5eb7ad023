import { frozenClock } from '../testing/frozen-clock';
import { processLimits } from './limits';
import { SlotLedger } from './slot-ledger';

const run = (queue: string, tenantId: string | null = null) => ({ queue, tenantId });

describe('SlotLedger', () => {
  it('serves no queue until serve(), then counts free slots per queue', () => {
    const ledger = new SlotLedger(undefined);
    expect(ledger.serves('a')).toBe(false);
    expect(ledger.total()).toBe(0);
    ledger.serve(
      new Map([
        ['a', 2],
        ['b', 3],
      ]),
    );
    expect([...ledger.queues()]).toEqual(['a', 'b']);
    expect(ledger.total()).toBe(5);
    expect(ledger.size('b')).toBe(3);
    expect(ledger.size('unserved')).toBe(0);
    expect(ledger.take(run('a'))).toBe('ok');
    expect(ledger.take(run('a'))).toBe('ok');
    expect(ledger.free('a')).toBe(0);
    expect(ledger.free('b')).toBe(3);
    ledger.give(run('a'));
    expect(ledger.free('a')).toBe(1);
  });

  it('a cap that refuses takes nothing, and its place comes back with the slot', () => {
    const ledger = new SlotLedger(processLimits({ perTenant: 1 }, frozenClock()));
    ledger.serve(new Map([['a', 4]]));
    expect(ledger.fullTenants()).toEqual([]);
    expect(ledger.take(run('a', 't1'))).toBe('ok');
    expect(ledger.fullTenants()).toEqual(['t1']);
    expect(ledger.take(run('a', 't1'))).toBe('perTenant');
    expect(ledger.free('a')).toBe(3);
    ledger.give(run('a', 't1'));
    expect(ledger.fullTenants()).toEqual([]);
    expect(ledger.take(run('a', 't1'))).toBe('ok');
  });

  it('without caps it names no full tenant', () => {
    const ledger = new SlotLedger(undefined);
    ledger.serve(new Map([['a', 1]]));
    ledger.take(run('a', 't1'));
    expect(ledger.fullTenants()).toBeUndefined();
  });
});
