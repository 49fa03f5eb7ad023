import type { JobDriver, QueueStats } from '../../driver/job-driver';
import type { Clock } from '../../util/clock';
import { ThrottledRead } from './throttled-read';

/** How long one `stats()` answer serves every scrape and readiness probe of this process (1 000 ms). */
export const QUEUE_STATS_MAX_AGE_MS = 1_000;

/**
 * The driver's `stats()` — one statement — shared by the metrics gauges and the health thresholds of one process:
 * callers within {@link QUEUE_STATS_MAX_AGE_MS} of the last read (or during it) get its answer, so a scrape storm
 * across replicas costs each process at most one statement a second. A failed read is kept as long as an answer,
 * for the same reason: a storm during an outage must not become a storm of connects.
 */
export class QueueStatsCache extends ThrottledRead<readonly QueueStats[]> {
  constructor(
    driver: Pick<JobDriver, 'stats'>,
    clock: Pick<Clock, 'now'>,
    maxAgeMs: number = QUEUE_STATS_MAX_AGE_MS,
  ) {
    super(() => driver.stats(), clock, maxAgeMs);
  }
}

const caches = new WeakMap<object, QueueStatsCache>();

/** The one cache of a driver in this process (keyed by the driver object, so health and metrics share it). */
export function queueStatsCacheOf(driver: JobDriver, clock: Pick<Clock, 'now'>): QueueStatsCache {
  let cache = caches.get(driver);
  if (cache === undefined) {
    cache = new QueueStatsCache(driver, clock);
    caches.set(driver, cache);
  }
  return cache;
}
