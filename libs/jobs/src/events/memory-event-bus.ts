import { systemClock, type Clock } from '../util/clock';
import { uuidv7 } from '../util/ids';
import { DEFAULT_EVENT_TTL_MS, type EventBus, type PublishedEvent } from './event-bus';

/** An in-process event bus on `clock` (tests, one-process apps); each event keeps the tenant it was published under. */
export function memoryEventBus(options: { readonly clock?: Clock } = {}): EventBus {
  const clock = options.clock ?? systemClock;
  let events: PublishedEvent[] = [];
  return {
    now: () => Promise.resolve(clock.now()),
    publish(name, payload, opts = {}) {
      const at = clock.now();
      const event: PublishedEvent = {
        id: uuidv7(at),
        name,
        payload,
        tenant: opts.tenant ?? null,
        publishedAt: at,
        expiresAt: at + (opts.ttlMs ?? DEFAULT_EVENT_TTL_MS),
      };
      events.push(event);
      return Promise.resolve(event);
    },
    find(name, sinceMs, match, opts = {}) {
      const now = clock.now();
      const hit = events.find(
        (e) =>
          e.name === name &&
          (opts.tenant === undefined || e.tenant === opts.tenant) &&
          e.publishedAt >= sinceMs &&
          e.expiresAt > now &&
          (match === undefined || match(e.payload)),
      );
      return Promise.resolve(hit);
    },
    purgeExpired() {
      const now = clock.now();
      const before = events.length;
      events = events.filter((e) => e.expiresAt > now);
      return Promise.resolve(before - events.length);
    },
    reset() {
      events = [];
      return Promise.resolve();
    },
  };
}
