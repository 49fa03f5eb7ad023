import { isUuid, uuidv7, uuidv7Ascending, uuidv7Batch } from './ids';

const msOf = (id: string): number => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe('uuidv7', () => {
  it('is a canonical RFC 9562 version 7 id: version digit 7, variant 10xx', () => {
    for (let i = 0; i < 1_000; i++) {
      const id = uuidv7();
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe('7');
      expect('89ab').toContain(id[19]);
    }
  });

  it('carries the millisecond it was minted at in its first 48 bits (what the wake slot probe ranges over)', () => {
    const at = Date.UTC(2026, 10, 29, 13, 44, 52, 123);
    expect(msOf(uuidv7(at))).toBe(at);
    expect(msOf(uuidv7(0))).toBe(0);
    expect(msOf(uuidv7(-5))).toBe(0);
    expect(msOf(uuidv7(at + 0.9))).toBe(at);
    expect(uuidv7(2 ** 48 - 1).slice(0, 13)).toBe('ffffffff-ffff');
    // past the 48 bits (a clock gone wrong): the last millisecond they hold, still a canonical id
    expect(uuidv7(2 ** 48 + 5).slice(0, 13)).toBe('ffffffff-ffff');
    expect(uuidv7(2 ** 48 + 5)).toHaveLength(36);
    for (const ms of [2 ** 32 - 1, 2 ** 32, 2 ** 40 + 0x1234, 0xabcdef012345])
      expect(uuidv7(ms).slice(0, 13)).toBe(
        `${ms.toString(16).padStart(12, '0').slice(0, 8)}-${ms.toString(16).padStart(12, '0').slice(8)}`,
      );
  });

  it('sorts by mint time as text, and differs within one millisecond', () => {
    const at = Date.UTC(2026, 0, 1);
    const ids = Array.from({ length: 10_000 }, (_, i) => uuidv7(at + Math.floor(i / 100)));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 100; i < ids.length; i += 100) {
      expect((ids[i - 1] ?? '') < (ids[i] ?? '')).toBe(true);
    }
  });

  it('mints a batch of one millisecond as uuidv7 would: canonical, that millisecond, all different', () => {
    const at = Date.UTC(2026, 10, 29, 13, 44, 52, 123);
    const ids = uuidv7Batch(at, 5_000);
    expect(ids).toHaveLength(5_000);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe('7');
      expect('89ab').toContain(id[19]);
      expect(msOf(id)).toBe(at);
    }
    expect(uuidv7Batch(at, 0)).toEqual([]);
    expect(uuidv7Batch(-5, 1)[0]?.slice(0, 15)).toBe(uuidv7(-5).slice(0, 15));
  });

  it('fills all 74 random bits of a batch id: each of them is seen both 0 and 1, the fixed ones never move', () => {
    const ids = uuidv7Batch(Date.UTC(2026, 0, 1), 2_000);
    const bitsOf = (id: string): string =>
      [...id.replace(/-/g, '')].map((d) => parseInt(d, 16).toString(2).padStart(4, '0')).join('');
    const ones = new Array<number>(128).fill(0);
    for (const id of ids)
      [...bitsOf(id)].forEach((bit, i) => (ones[i] = (ones[i] ?? 0) + (bit === '1' ? 1 : 0)));
    const varying = ones.filter((count) => count > 0 && count < ids.length).length;
    expect(varying).toBe(74);
    // version 0111 and variant 10 are the same in every id
    const fixed = bitsOf(ids[0] as string);
    expect(fixed.slice(48, 52)).toBe('0111');
    expect(fixed.slice(64, 66)).toBe('10');
  });
  it('mints a batch in ascending order without sorting, and sorts one too large for its counter', () => {
    const at = Date.UTC(2026, 10, 29, 13, 44, 52, 123);
    for (const count of [1, 2, 1_000, 4_096, 4_097, 6_000]) {
      const ids = uuidv7Ascending(at, count);
      expect(ids).toHaveLength(count);
      const wrong = ids.filter(
        (id, i) =>
          !isUuid(id) ||
          id !== id.toLowerCase() ||
          id[14] !== '7' ||
          !'89ab'.includes(id[19] as string) ||
          msOf(id) !== at ||
          (i > 0 && (ids[i - 1] as string) >= id),
      );
      expect(wrong).toEqual([]);
    }
    expect(uuidv7Ascending(at, 0)).toEqual([]);
    // the counter starts at random: two batches of one millisecond do not start alike
    const starts = new Set(
      Array.from({ length: 20 }, () => uuidv7Ascending(at, 10)[0]?.slice(15, 18)),
    );
    expect(starts.size).toBeGreaterThan(1);
  });

  it('counts rand_a up by one an id from a start that leaves room for the whole batch, up to 4,096 ids', () => {
    const at = Date.UTC(2026, 10, 29, 13, 44, 52, 123);
    const randA = (id: string): number => parseInt(id.slice(15, 18), 16);
    for (const count of [1, 2, 4_095, 4_096]) {
      const starts = new Set<number>();
      // 40 batches: were a start past the room possible (the last id's rand_a past 12 bits), it would escape
      // all 40 with odds of at most (2/3)^40
      for (let run = 0; run < 40; run++) {
        const ids = uuidv7Ascending(at, count);
        const start = randA(ids[0] as string);
        starts.add(start);
        expect(ids.map(randA)).toEqual(Array.from({ length: count }, (_, i) => start + i));
        expect(start + count).toBeLessThanOrEqual(4_096);
      }
      // the last start that leaves room is drawn too: with 4,095 ids, 0 and 1 both come up
      if (count === 4_095) expect([...starts].sort((a, b) => a - b)).toEqual([0, 1]);
      if (count === 4_096) expect([...starts]).toEqual([0]);
    }
  });

  it('draws each random bit of a batch id independently of every other: each pair of them is seen in all four combinations', () => {
    const ids = uuidv7Batch(Date.UTC(2026, 0, 1), 2_000);
    const bits = ids.map((id) =>
      [...id.replace(/-/g, '')].flatMap((d) =>
        [...parseInt(d, 16).toString(2).padStart(4, '0')].map(Number),
      ),
    );
    // the 128 bits less the 48 of the time, the 4 of the version and the 2 of the variant
    const random = Array.from({ length: 128 }, (_, i) => i).filter(
      (i) => i >= 52 && !(i >= 64 && i < 66),
    );
    expect(random).toHaveLength(74);
    const tied: string[] = [];
    for (const [n, i] of random.entries()) {
      for (const j of random.slice(n + 1)) {
        const seen = new Set(bits.map((b) => `${b[i]}${b[j]}`));
        if (seen.size < 4) tied.push(`${i}~${j}`);
      }
    }
    expect(tied).toEqual([]);
  });
});

describe('isUuid', () => {
  it('accepts a UUID in canonical text form, of any version and letter case', () => {
    for (const id of [
      uuidv7(),
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '0190A0A0-0000-4000-8000-0000000000AB',
    ])
      expect(isUuid(id)).toBe(true);
  });

  it.each([
    ['text before it', 'x0123abcd-4567-89ef-fedc-ba9876543210'],
    ['text after it', '0123abcd-4567-89ef-fedc-ba98765432100'],
    ['a line feed after it', '0123abcd-4567-89ef-fedc-ba9876543210\n'],
    ['a dash missing', '0123abcd-4567-89ef-fedcba9876543210'],
    ['no dashes', '0123abcd456789effedcba9876543210'],
    ['a dash out of place', '0123abc-d4567-89ef-fedc-ba9876543210'],
    ['a digit past f', '0123abcg-4567-89ef-fedc-ba9876543210'],
    ['braces', '{0123abcd-4567-89ef-fedc-ba9876543210}'],
    ['nothing', ''],
  ])('refuses a string that is not one (%s)', (_, value) => {
    expect(isUuid(value)).toBe(false);
  });
});
