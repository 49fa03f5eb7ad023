import { keysetSweep, type KeysetBatch } from './keyset-sweep';

/** A sweep over `batches` (answered in turn), recording the cursor each batch was asked after. */
async function sweep(limit: number, batches: (KeysetBatch | undefined)[]) {
  const asked: [string | null, string | null][] = [];
  const removed = await keysetSweep(limit, async (afterAt, afterId) => {
    asked.push([afterAt, afterId]);
    return batches.shift();
  });
  return { removed, asked };
}

const full = (n: number, removed: number | string = n) => ({
  removed,
  scanned: n,
  last_at: `t${n}`,
  last_id: `id${n}`,
});

describe('keysetSweep', () => {
  it('continues after the last key of each full batch, and stops at the first short one', async () => {
    const { removed, asked } = await sweep(3, [
      full(3),
      { ...full(3, '2'), last_at: 't6', last_id: 'id6' },
      { removed: 1, scanned: 1, last_at: 't7', last_id: 'id7' },
      full(3),
    ]);
    // counts that arrive as text (a bigint) are added as numbers
    expect(removed).toBe(6);
    expect(asked).toEqual([
      [null, null],
      ['t3', 'id3'],
      ['t6', 'id6'],
    ]);
  });

  it('stops when a batch answers no row, or a full batch no last key', async () => {
    expect((await sweep(2, [undefined])).removed).toBe(0);
    const { removed, asked } = await sweep(2, [
      { removed: 2, scanned: 2, last_at: null, last_id: null },
      full(2),
    ]);
    expect(removed).toBe(2);
    expect(asked).toHaveLength(1);
  });
});
