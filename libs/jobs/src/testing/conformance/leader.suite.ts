import { leaseStoreLeader } from '../../scheduler/lease-store-leader';
import type { Harness } from './harness';

/**
 * The scheduler's election over the backend's lease store, for a backend that declares `leader`: one holder at a
 * time, renewed by its own ask, handed over on release or once its lease lapses (on the backend's clock).
 */
export function leaderSuite(h: Harness): void {
  describe('leader (lease-store election)', () => {
    const TTL = 10_000;
    const pair = () => {
      const leases = h.leases();
      return [
        leaseStoreLeader({ leases, holderId: 'scheduler-a', ttlMs: TTL }),
        leaseStoreLeader({ leases, holderId: 'scheduler-b', ttlMs: TTL }),
      ] as const;
    };

    it('elects one holder; its own ask renews; another takes over once it releases', async () => {
      const [a, b] = pair();
      expect(await a.acquire()).toBe(true);
      expect(await b.acquire()).toBe(false);
      expect(await a.acquire()).toBe(true);
      await a.release();
      expect(await b.acquire()).toBe(true);
      expect(await a.acquire()).toBe(false);
    });

    it('hands over once the holder stops renewing and its lease lapses', async () => {
      const [a, b] = pair();
      expect(await a.acquire()).toBe(true);
      await h.clock().advance(TTL - 1);
      expect(await b.acquire()).toBe(false);
      await h.clock().advance(1);
      expect(await b.acquire()).toBe(true);
      expect(await a.acquire()).toBe(false);
    });
  });
}
