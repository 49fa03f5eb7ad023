import type { JsonValue } from '../util/json';

/** How long a published event stays matchable when the publisher names no TTL (one day). */
export const DEFAULT_EVENT_TTL_MS = 86_400_000;

/** One published event. Times are the bus's own clock. */
export interface PublishedEvent {
  /** The event's id. */
  readonly id: string;
  /** The event name a `step.waitForEvent` waits on. */
  readonly name: string;
  /** The JSON payload a matching wait answers. */
  readonly payload: JsonValue;
  /** The tenant it was published under; null: none. A wait matches only its own run's tenant. */
  readonly tenant: string | null;
  /** When it was published (epoch ms). */
  readonly publishedAt: number;
  /** When it stops matching waits (epoch ms). */
  readonly expiresAt: number;
}

/** Options of {@link EventBus.publish}. */
export interface EventPublishOptions {
  /** How long it stays matchable (default {@link DEFAULT_EVENT_TTL_MS}). */
  readonly ttlMs?: number;
  /** The tenant it is published under (default null: none). `publishEvent` decides it; the bus stores it. */
  readonly tenant?: string | null;
}

/** Options of {@link EventBus.find}. */
export interface EventFindOptions {
  /**
   * Match only events published under this tenant — null: only events published under none. Absent: every tenant's
   * (an operator's or a test's look, never a run's: `step.waitForEvent` always names its run's tenant).
   */
  readonly tenant?: string | null;
}

/**
 * Events that resume `step.waitForEvent`. The bus has ONE clock: it stamps `publishedAt` itself and `now()` answers
 * that same clock, so a wait stamped from `now()` matches an event published after it asked, whatever the skew between
 * the worker and the publisher. Every event carries the tenant it was published under, and a run's wait looks up its
 * own tenant's events only.
 */
export interface EventBus {
  /** The bus's clock. */
  now(): Promise<number>;
  /** Publishes an event, matchable until it expires. */
  publish(name: string, payload: JsonValue, options?: EventPublishOptions): Promise<PublishedEvent>;
  /**
   * The earliest unexpired event named `name` published at or after `sinceMs` — under `options.tenant` when it is
   * given — for which `match` answers true.
   */
  find(
    name: string,
    sinceMs: number,
    match?: (payload: JsonValue) => boolean,
    options?: EventFindOptions,
  ): Promise<PublishedEvent | undefined>;
  /** Deletes expired events; answers how many. */
  purgeExpired(): Promise<number>;
  /** Forgets every event (the test seam behind `resetEventBus()`). */
  reset(): Promise<void>;
}
