import type { QueueStats } from '../../driver/job-driver';
import type { JobState } from '../../driver/job-row';
import { LATER, type Harness } from './harness';

const ZERO: Omit<QueueStats, 'queue' | 'names'> = {
  ready: 0,
  delayed: 0,
  running: 0,
  suspended: 0,
  done: 0,
  failed: 0,
  dead: 0,
  cancelled: 0,
  oldestReadyMs: 0,
};

/** stats: counts per queue and state, the age of the oldest due row, and the live rows per job name. */
export function statsSuite(h: Harness): void {
  describe('stats', () => {
    it('answers no queue before anything was enqueued', async () => {
      expect(await h.driver().stats()).toEqual([]);
    });

    it('answers a ping, when it has one, while its storage is within reach', async () => {
      const driver = h.driver();
      if (driver.ping === undefined) return expect(driver.ping).toBeUndefined();
      await expect(driver.ping()).resolves.toBeUndefined();
    });

    it('counts every state per queue', async () => {
      // rows a claim must move come first: a claim takes the oldest due row of the queue
      const states: readonly JobState[] = ['running', 'suspended', 'done', 'ready', 'delayed'];
      for (const state of states) await h.rowIn(state, { queue: 'q-a' });
      await h.rowIn('failed', { queue: 'q-b' });
      await h.rowIn('dead', { queue: 'q-b' });
      await h.rowIn('dead', { queue: 'q-b' });
      await h.rowIn('ready', { queue: 'q-b' });

      const stats = await h.driver().stats();
      const byQueue = new Map(stats.map(({ names: _names, ...s }) => [s.queue, s]));
      expect({ ...byQueue.get('q-a'), oldestReadyMs: 0 }).toEqual({
        ...ZERO,
        queue: 'q-a',
        ready: 1,
        delayed: 1,
        running: 1,
        suspended: 1,
        done: 1,
      });
      expect({ ...byQueue.get('q-b'), oldestReadyMs: 0 }).toEqual({
        ...ZERO,
        queue: 'q-b',
        ready: 1,
        failed: 1,
        dead: 2,
      });
    });

    it('lists each queue’s live rows per job name, finished rows left out', async () => {
      const now = h.clock().now();
      await h.rowIn('running', { queue: 'q-a', name: 'job.b', runAt: now - 9_000 });
      await h.rowIn('suspended', { queue: 'q-a', name: 'job.b', runAt: now - 8_000 });
      await h.rowIn('done', { queue: 'q-a', name: 'job.c', runAt: now - 7_000 });
      await h.rowIn('ready', { queue: 'q-a', name: 'job.b', runAt: now - 2_000 });
      await h.rowIn('ready', { queue: 'q-a', name: 'job.a', runAt: now - 6_000 });
      await h.rowIn('ready', { queue: 'q-a', name: 'job.a', runAt: now - 1_000 });
      await h.rowIn('delayed', { queue: 'q-a', name: 'job.a' });
      await h.rowIn('ready', { queue: 'q-b', name: 'job.a', runAt: now - 3_000 });

      const stats = await h.driver().stats();
      const live = { ready: 0, delayed: 0, running: 0, suspended: 0 };
      expect(stats.find((s) => s.queue === 'q-a')?.names).toEqual([
        { ...live, name: 'job.a', ready: 2, delayed: 1, oldestReadyMs: 6_000 },
        { ...live, name: 'job.b', ready: 1, running: 1, suspended: 1, oldestReadyMs: 2_000 },
      ]);
      expect(stats.find((s) => s.queue === 'q-b')?.names).toEqual([
        { ...live, name: 'job.a', ready: 1, oldestReadyMs: 3_000 },
      ]);
    });

    it('reports the age of the oldest due row, and 0 when none is due', async () => {
      await h.enqueue({ queue: 'q-a', runAt: h.clock().now() + LATER });
      const ageOf = async (): Promise<number | undefined> =>
        (await h.driver().stats()).find((s) => s.queue === 'q-a')?.oldestReadyMs;
      expect(await ageOf()).toBe(0);
      await h.enqueue({ queue: 'q-a' });
      await h.clock().advance(5_000);
      await h.enqueue({ queue: 'q-a' });
      const age = await ageOf();
      expect(age).toBeGreaterThanOrEqual(5_000);
      expect(age).toBeLessThan(LATER);
    });
  });
}
