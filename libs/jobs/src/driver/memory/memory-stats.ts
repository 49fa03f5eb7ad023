import type { QueueStats } from '../job-driver';
import type { JobState } from '../job-row';
import type { MemoryStore } from './memory-store';

type Counts = { -readonly [S in JobState]: number };

/** Counts per queue that holds rows, by queue name; `oldestReadyMs` is the age of the oldest due ready or delayed row. */
export function queueStats(store: MemoryStore): QueueStats[] {
  const now = store.now();
  return store
    .queues()
    .sort()
    .map((queue) => {
      const counts: Counts = {
        ready: 0,
        delayed: 0,
        running: 0,
        suspended: 0,
        done: 0,
        failed: 0,
        dead: 0,
        cancelled: 0,
      };
      let oldestReadyMs = 0;
      for (const row of store.inQueue(queue)) {
        counts[row.state] += 1;
        // a delayed row whose time came is due: it only changes state when claimed
        if ((row.state === 'ready' || row.state === 'delayed') && row.runAt <= now) {
          oldestReadyMs = Math.max(oldestReadyMs, now - row.runAt);
        }
      }
      return { queue, ...counts, oldestReadyMs };
    });
}
