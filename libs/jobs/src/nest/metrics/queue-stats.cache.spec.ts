import { memoryJobDriver } from '../../driver/memory/memory-driver';
import type { JobDriver } from '../../driver/job-driver';
import { frozenClock } from '../../testing/frozen-clock';
import { QueueStatsCache } from './queue-stats.cache';

/** A real driver whose `stats()` counts the statements it would send. */
function counting(driver: JobDriver): { driver: JobDriver; calls: () => number } {
  let calls = 0;
  return {
    driver: {
      ...driver,
      stats: () => {
        calls += 1;
        return driver.stats();
      },
    },
    calls: () => calls,
  };
}

describe('QueueStatsCache: one stats() a second, however many ask', () => {
  it('answers a storm of reads within one second from one statement, and reads again after it', async () => {
    const clock = frozenClock();
    const c = counting(memoryJobDriver({ clock }));
    const cache = new QueueStatsCache(c.driver, clock);
    await Promise.all(Array.from({ length: 200 }, () => cache.read()));
    expect(c.calls()).toBe(1);
    await clock.advance(999);
    await Promise.all(Array.from({ length: 200 }, () => cache.read()));
    expect(c.calls()).toBe(1);
    await clock.advance(1);
    await cache.read();
    expect(c.calls()).toBe(2);
    // ten seconds of a scrape every 10 ms (t = 1 000 … 10 990): one statement in each of its ten seconds, the
    // first of which is the read just made
    for (let i = 0; i < 1_000; i++) {
      await cache.read();
      await clock.advance(10);
    }
    expect(c.calls()).toBe(1 + 10);
    expect(cache.reads).toBe(c.calls());
  });

  it('keeps a failure for the window too: an outage is not a storm of connects', async () => {
    const clock = frozenClock();
    let calls = 0;
    const driver: JobDriver = {
      ...memoryJobDriver({ clock }),
      stats: () => {
        calls += 1;
        return Promise.reject(new Error('down'));
      },
    };
    const cache = new QueueStatsCache(driver, clock);
    await expect(cache.read()).rejects.toThrow('down');
    await expect(cache.read()).rejects.toThrow('down');
    expect(calls).toBe(1);
    await clock.advance(1_000);
    await expect(cache.read()).rejects.toThrow('down');
    expect(calls).toBe(2);
  });
});
