import type { JsonValue } from '../util/json';

/** How long a published event stays matchable when the publisher names no TTL (one day). */
export const DEFAULT_EVENT_TTL_MS = 86_400_000;

/** One published event. Times are the bus's own clock. */
export interface PublishedEvent {
  readonly id: string;
  readonly name: string;
  readonly payload: JsonValue;
  readonly publishedAt: number;
  readonly expiresAt: number;
}

/**
 * Events that resume `step.waitForEvent`. The bus has ONE clock: it stamps `publishedAt` itself and `now()` answers
 * that same clock, so a wait stamped from `now()` matches an event published after it asked, whatever the skew between
 * the worker and the publisher.
 */
export interface EventBus {
  /** The bus's clock. */
  now(): Promise<number>;
  /** Publishes an event, matchable until it expires. */
  publish(
    name: string,
    payload: JsonValue,
    options?: { readonly ttlMs?: number },
  ): Promise<PublishedEvent>;
  /** The earliest unexpired event named `name` published at or after `sinceMs` for which `match` answers true. */
  find(
    name: string,
    sinceMs: number,
    match?: (payload: JsonValue) => boolean,
  ): Promise<PublishedEvent | undefined>;
  /** Deletes expired events; answers how many. */
  purgeExpired(): Promise<number>;
  /** Forgets every event (the test seam behind `resetEventBus()`). */
  reset(): Promise<void>;
}
