import type { MemoryOutboxRow } from './memory-outbox-row';
import { MemoryTx } from './memory-outbox-tx';

describe('MemoryTx', () => {
  it('lands what it staged on commit, once', () => {
    const landed: (readonly MemoryOutboxRow[])[] = [];
    const tx = new MemoryTx({ land: (rows) => void landed.push(rows) });
    expect(tx.state).toBe('open');
    tx.commit();
    expect(tx.state).toBe('committed');
    expect(landed).toEqual([tx.staged]);
    expect(() => tx.commit()).toThrow(
      expect.objectContaining({
        code: 'X_INVARIANT',
        message: expect.stringContaining('memory outbox tx is already committed.'),
      }),
    );
    expect(() => tx.rollback()).toThrow(/already committed/);
    expect(landed).toHaveLength(1);
  });

  it('lands nothing on rollback', () => {
    const landed: (readonly MemoryOutboxRow[])[] = [];
    const tx = new MemoryTx({ land: (rows) => void landed.push(rows) });
    tx.rollback();
    expect(tx.state).toBe('rolled-back');
    expect(() => tx.commit()).toThrow(/already rolled-back/);
    expect(landed).toEqual([]);
  });
});
