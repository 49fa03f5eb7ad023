import type { Harness } from './harness';

const KEY = 'job:conformance.capped';

/** leases: fleet slots per key, taken lowest first, renewed by their holder, freed by release or TTL. */
export function leasesSuite(h: Harness): void {
  describe('leases', () => {
    it('acquires a free slot and lists its holder', async () => {
      const leases = h.leases();
      expect(await leases.acquire(KEY, 'job-1', 1, 1_000)).toBe(true);
      const [holder, ...rest] = await leases.holders(KEY);
      expect(rest).toEqual([]);
      expect(holder).toMatchObject({ holder: 'job-1', slot: 0 });
      expect(typeof holder?.expiresAt).toBe('number');
    });

    it('refuses past the limit, and lists holders in slot order', async () => {
      const leases = h.leases();
      expect(await leases.acquire(KEY, 'job-1', 2, 1_000)).toBe(true);
      expect(await leases.acquire(KEY, 'job-2', 2, 1_000)).toBe(true);
      expect(await leases.acquire(KEY, 'job-3', 2, 1_000)).toBe(false);
      const holders = await leases.holders(KEY);
      expect(holders.map((x) => [x.holder, x.slot])).toEqual([
        ['job-1', 0],
        ['job-2', 1],
      ]);
    });

    it('renews the slot a holder already holds instead of taking a second one', async () => {
      const leases = h.leases();
      await leases.acquire(KEY, 'job-1', 2, 1_000);
      const [before] = await leases.holders(KEY);
      await h.clock().advance(500);
      expect(await leases.acquire(KEY, 'job-1', 2, 1_000)).toBe(true);
      const holders = await leases.holders(KEY);
      expect(holders).toHaveLength(1);
      expect(holders[0]?.slot).toBe(0);
      expect(holders[0]?.expiresAt).toBeGreaterThan(before!.expiresAt);
    });

    it('frees a slot whose TTL passed, with no cleanup call', async () => {
      const leases = h.leases();
      await leases.acquire(KEY, 'job-1', 1, 1_000);
      await h.clock().advance(999);
      expect(await leases.acquire(KEY, 'job-2', 1, 1_000)).toBe(false);
      await h.clock().advance(1);
      expect(await leases.holders(KEY)).toEqual([]);
      expect(await leases.acquire(KEY, 'job-2', 1, 1_000)).toBe(true);
      expect((await leases.holders(KEY)).map((x) => x.holder)).toEqual(['job-2']);
      expect(await leases.renew(KEY, 'job-1', 1_000)).toBe(false);
    });

    it('renew extends a live slot and answers false for one not held', async () => {
      const leases = h.leases();
      await leases.acquire(KEY, 'job-1', 1, 1_000);
      await h.clock().advance(800);
      expect(await leases.renew(KEY, 'job-1', 1_000)).toBe(true);
      await h.clock().advance(800);
      expect((await leases.holders(KEY)).map((x) => x.holder)).toEqual(['job-1']);
      expect(await leases.acquire(KEY, 'job-2', 1, 1_000)).toBe(false);
      expect(await leases.renew(KEY, 'job-2', 1_000)).toBe(false);
      expect(await leases.renew('job:other', 'job-1', 1_000)).toBe(false);
    });

    it('release frees the holder’s slot, and the lowest free slot is taken next', async () => {
      const leases = h.leases();
      await leases.acquire(KEY, 'job-1', 2, 1_000);
      await leases.acquire(KEY, 'job-2', 2, 1_000);
      await leases.release(KEY, 'job-1');
      await leases.release(KEY, 'job-nobody');
      expect((await leases.holders(KEY)).map((x) => [x.holder, x.slot])).toEqual([['job-2', 1]]);
      expect(await leases.acquire(KEY, 'job-3', 2, 1_000)).toBe(true);
      expect((await leases.holders(KEY)).map((x) => [x.holder, x.slot])).toEqual([
        ['job-3', 0],
        ['job-2', 1],
      ]);
      expect(await leases.renew(KEY, 'job-1', 1_000)).toBe(false);
    });

    it('keeps keys apart', async () => {
      const leases = h.leases();
      expect(await leases.acquire('job-key:a:1', 'job-1', 1, 1_000)).toBe(true);
      expect(await leases.acquire('job-key:a:2', 'job-2', 1, 1_000)).toBe(true);
      expect((await leases.holders('job-key:a:1')).map((x) => x.holder)).toEqual(['job-1']);
      expect(await leases.holders('job-key:a:3')).toEqual([]);
    });
  });
}
