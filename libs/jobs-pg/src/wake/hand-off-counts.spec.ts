import type { HandOffOffer } from '@ultimat3/jobs';
import { HandOffCounts } from './hand-off-counts';

const offer = (queue: string, free: number, names: readonly string[] = ['n']): HandOffOffer => ({
  queue,
  free,
  names,
});

describe('HandOffCounts (what the registration is known to hold)', () => {
  it('is stale for a queue not registered, and not once it is written', () => {
    const counts = new HandOffCounts();
    expect(counts.stale([offer('q', 4)])).toBe(true);
    counts.written([offer('q', 4)]);
    expect(counts.stale([offer('q', 4)])).toBe(false);
    expect(counts.stale([offer('q', 4), offer('r', 1)])).toBe(true);
  });

  it('compares the names in any order, and is stale for other names', () => {
    const counts = new HandOffCounts();
    counts.written([offer('q', 4, ['b', 'a'])]);
    expect(counts.stale([offer('q', 4, ['a', 'b'])])).toBe(false);
    expect(counts.stale([offer('q', 4, ['a'])])).toBe(true);
  });

  it('is stale once at most half the registered slots are left and the worker can take more', () => {
    const counts = new HandOffCounts();
    counts.written([offer('q', 4)]);
    counts.handed('q', 3);
    expect(counts.stale([offer('q', 4)])).toBe(false);
    counts.handed('q', 2);
    expect(counts.stale([offer('q', 4)])).toBe(true);
    // a worker that can take no more than is left is not worth a write
    expect(counts.stale([offer('q', 2)])).toBe(false);
  });

  it('takes one slot off when a handed row tells no count', () => {
    const counts = new HandOffCounts();
    counts.written([offer('q', 4)]);
    counts.handed('q', undefined);
    expect(counts.stale([offer('q', 4)])).toBe(false);
    counts.handed('q', 'two');
    expect(counts.stale([offer('q', 4)])).toBe(true);
  });

  it('ignores a row of a queue not registered', () => {
    const counts = new HandOffCounts();
    counts.handed('q', 0);
    counts.written([offer('q', 4)]);
    expect(counts.stale([offer('q', 4)])).toBe(false);
  });

  it('forgets the queues of a failed write, and every queue on clear', () => {
    const counts = new HandOffCounts();
    counts.written([offer('q', 4), offer('r', 4)]);
    counts.forget([offer('q', 4)]);
    expect(counts.stale([offer('q', 4)])).toBe(true);
    expect(counts.stale([offer('r', 4)])).toBe(false);
    counts.clear();
    expect(counts.stale([offer('r', 4)])).toBe(true);
  });
});
