import type { OutboxBacklog, OutboxStore } from '../../outbox/outbox-store';
import type { Clock } from '../../util/clock';
import { ThrottledRead } from './throttled-read';

/** How long one `backlog()` answer serves every scrape and readiness probe of this process (1 000 ms). */
export const OUTBOX_BACKLOG_MAX_AGE_MS = 1_000;

const caches = new WeakMap<object, ThrottledRead<OutboxBacklog>>();

/**
 * The one cached `backlog()` of an outbox store in this process (keyed by the store object), shared by the
 * `outbox_lag_seconds` gauge and the health check's `outbox.maxLagMs`: at most one statement a second however many
 * scrapers and probes. An answer is up to a second old: the lag it reports may lag by that much.
 */
export function outboxBacklogCacheOf(
  store: Pick<OutboxStore, 'backlog'>,
  clock: Pick<Clock, 'now'>,
): ThrottledRead<OutboxBacklog> {
  let cache = caches.get(store);
  if (cache === undefined) {
    cache = new ThrottledRead(() => store.backlog(), clock, OUTBOX_BACKLOG_MAX_AGE_MS);
    caches.set(store, cache);
  }
  return cache;
}
