import { backfillChecksum, type ChecksumParts } from './checksum';

const base: ChecksumParts = {
  name: 'slugs',
  key: undefined,
  source: () => ({}),
  handle: () => undefined,
  count: undefined,
  requires: undefined,
  environments: undefined,
};

describe('the definition checksum a pass is recorded under', () => {
  it('moves with each part of what the sweep selects and does, where it may run and what it waits for', () => {
    const changed: Partial<ChecksumParts>[] = [
      { name: 'slugs-2' },
      { key: ['id'] },
      { source: () => ({ other: true }) },
      { handle: () => void 'other' },
      { count: () => 0 },
      { requires: 'AddSlug1786708800000' },
      { environments: ['production'] },
    ];
    const sums = changed.map((part) => backfillChecksum({ ...base, ...part }));
    expect(new Set([backfillChecksum(base), ...sums]).size).toBe(1 + changed.length);
  });

  it('is the same for the same declaration, function text included, and tells a list from its parts', () => {
    expect(backfillChecksum({ ...base, source: () => ({}) })).toBe(backfillChecksum(base));
    expect(backfillChecksum({ ...base, environments: ['a', 'b'] })).not.toBe(
      backfillChecksum({ ...base, environments: ['a,b'] }),
    );
  });
});
