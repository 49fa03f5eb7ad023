import { OwedQueues } from './owed-queues';

describe('OwedQueues', () => {
  it('owes every served queue until a claim asks them', () => {
    const owed = new OwedQueues();
    expect(owed.any()).toBe(true);
    owed.sent(['a'], ['a', 'b']);
    expect(owed.any()).toBe(true);
    owed.sent(['b'], ['a', 'b']);
    expect(owed.any()).toBe(false);
  });

  it('owes a queue again once told, and every queue after a signal', () => {
    const owed = new OwedQueues();
    owed.sent(['a', 'b'], ['a', 'b']);
    owed.owe('b');
    expect(owed.any()).toBe(true);
    owed.sent(['b'], ['a', 'b']);
    expect(owed.any()).toBe(false);
    owed.oweAll();
    owed.sent(['a'], ['a', 'b']);
    expect(owed.any()).toBe(true);
  });
});
