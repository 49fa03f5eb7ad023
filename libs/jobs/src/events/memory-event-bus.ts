import { systemClock, type Clock } from '../util/clock';
import { uuidv7 } from '../util/ids';
import type { JsonValue } from '../util/json';
import { assertEventFind, assertEventPublish } from '../values/event';
import { DEFAULT_EVENT_TTL_MS, type EventBus, type PublishedEvent } from './event-bus';

/** One stored event: its payload kept as JSON text, as a database keeps it, so no caller's later mutation reaches it. */
interface StoredEvent extends Omit<PublishedEvent, 'payload'> {
  readonly text: string;
}

/** The event a reader gets: a fresh copy of the payload each time (`JSON.parse` keeps key order and `__proto__`). */
const read = ({ text, ...event }: StoredEvent): PublishedEvent => ({
  ...event,
  payload: JSON.parse(text) as JsonValue,
});

/** The fewest events held before `publish` first drops the expired ones. */
const SWEEP_FLOOR = 64;

/**
 * An in-process event bus on `clock` (tests, one-process apps); each event keeps the tenant it was published under.
 * It answers as the PostgreSQL bus does: the value contract at its door (`X_VALUE_INVALID`), and the payload read back
 * from its JSON text. No retention sweep reaches it, so `publish` drops the expired events itself whenever the bus
 * holds twice as many as it kept at its last drop: a long-lived bus holds its live events and a bounded number more.
 */
export function memoryEventBus(options: { readonly clock?: Clock } = {}): EventBus {
  const clock = options.clock ?? systemClock;
  let events: StoredEvent[] = [];
  /** How many events `publish` lets the bus hold before it drops the expired ones. */
  let sweepAt = SWEEP_FLOOR;
  const dropExpired = (now: number): number => {
    const before = events.length;
    events = events.filter((e) => e.expiresAt > now);
    sweepAt = Math.max(SWEEP_FLOOR, events.length * 2);
    return before - events.length;
  };
  return {
    now: () => Promise.resolve(clock.now()),
    async publish(name, payload, opts = {}) {
      assertEventPublish(name, payload, opts);
      const at = clock.now();
      const event: StoredEvent = {
        id: uuidv7(at),
        name,
        text: JSON.stringify(payload),
        tenant: opts.tenant ?? null,
        publishedAt: at,
        expiresAt: at + (opts.ttlMs ?? DEFAULT_EVENT_TTL_MS),
      };
      if (events.length >= sweepAt) dropExpired(at);
      events.push(event);
      return read(event);
    },
    async find(name, sinceMs, match, opts = {}) {
      assertEventFind(name, sinceMs, opts.tenant);
      const now = clock.now();
      for (const stored of events) {
        if (stored.name !== name || stored.publishedAt < sinceMs || stored.expiresAt <= now)
          continue;
        if (opts.tenant !== undefined && stored.tenant !== opts.tenant) continue;
        const event = read(stored);
        if (match === undefined || match(event.payload)) return event;
      }
      return undefined;
    },
    purgeExpired() {
      return Promise.resolve(dropExpired(clock.now()));
    },
    reset() {
      events = [];
      sweepAt = SWEEP_FLOOR;
      return Promise.resolve();
    },
  };
}
