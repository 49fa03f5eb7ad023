import type { JobNameStats, QueueStats } from '../job-driver';
import type { JobRow, JobState } from '../job-row';
import type { MemoryStore } from './memory-store';

type Counts = { -readonly [S in JobState]: number };
type NameCounts = { -readonly [K in keyof JobNameStats]: JobNameStats[K] };

/** The age of `row` at `now` when it is due and waiting to start (ready, or delayed whose time came), else 0. */
function dueAge(row: JobRow, now: number): number {
  // a delayed row whose time came is due: it only changes state when claimed
  return (row.state === 'ready' || row.state === 'delayed') && row.runAt <= now
    ? now - row.runAt
    : 0;
}

/** Counts of the live rows of one queue per job name, in code-point order of the name. */
function nameStats(rows: readonly JobRow[], now: number): JobNameStats[] {
  const byName = new Map<string, NameCounts>();
  for (const row of rows) {
    const state = row.state;
    if (state !== 'ready' && state !== 'delayed' && state !== 'running' && state !== 'suspended')
      continue;
    let counts = byName.get(row.name);
    if (counts === undefined) {
      counts = { name: row.name, ready: 0, delayed: 0, running: 0, suspended: 0, oldestReadyMs: 0 };
      byName.set(row.name, counts);
    }
    counts[state] += 1;
    counts.oldestReadyMs = Math.max(counts.oldestReadyMs, dueAge(row, now));
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Counts per queue that holds rows, by queue name; `oldestReadyMs` is the age of the oldest due ready or delayed row.
 * Each queue lists its live rows per job name.
 */
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
      const rows = store.inQueue(queue);
      for (const row of rows) {
        counts[row.state] += 1;
        oldestReadyMs = Math.max(oldestReadyMs, dueAge(row, now));
      }
      return { queue, ...counts, oldestReadyMs, names: nameStats(rows, now) };
    });
}
