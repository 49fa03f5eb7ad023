import {
  assertEventFind,
  assertEventPublish,
  DEFAULT_EVENT_TTL_MS,
  uuidv7,
  type EventBus,
  type EventFindOptions,
  type JsonValue,
  type Clock,
  type PublishedEvent,
} from '@ultimat3/jobs';
import type { Cluster, Redis } from 'ioredis';
import { redisContext, type RedisContext } from './redis-context';
import { redisKeyPrefix } from './redis-keys';
import { NULL_ARG } from './redis-rows';

/** How many events one lookup reads per round trip while it walks past refused or other tenants' events. */
const DEFAULT_PAGE = 100;

/** A stored event hash as a {@link PublishedEvent}, its payload parsed fresh from its JSON text. */
function toEvent(f: Record<string, string>): PublishedEvent | undefined {
  if (f.id === undefined) return undefined;
  return {
    id: f.id,
    name: f.name ?? '',
    payload: JSON.parse(f.payload ?? 'null') as JsonValue,
    tenant: f.ten ?? null,
    publishedAt: Number(f.at),
    expiresAt: Number(f.exp),
  };
}

/**
 * {@link EventBus.find} on `ctx`: the name's events in publish order, `pageSize` a round trip, the first unexpired one
 * of the tenant asked (if any) that `match` answers true for. Each page after the first starts just after the last
 * event read, by value (`LUA_EVENT_PAGE`, the `eventPage` script): a purge deleting events between two pages never ends the walk early.
 */
async function findEvent(
  ctx: RedisContext,
  now: () => Promise<number>,
  pageSize: number,
  name: string,
  sinceMs: number,
  match: ((payload: JsonValue) => boolean) | undefined,
  options: EventFindOptions = {},
): Promise<PublishedEvent | undefined> {
  assertEventFind(name, sinceMs, options.tenant);
  const at = await now();
  // the last event read: its score (publishedAt) and member (seq)
  let cursor: readonly [score: string, seq: string] = ['', ''];
  for (;;) {
    const flat = (await ctx.run('eventPage', [
      name,
      sinceMs,
      cursor[0],
      cursor[1],
      pageSize,
    ])) as string[];
    const read = ctx.client.pipeline();
    for (let i = 0; i < flat.length; i += 2) read.hgetall(`${ctx.prefix}ev:${flat[i]}`);
    for (const [, fields] of (await read.exec()) ?? []) {
      const event = toEvent(fields as Record<string, string>);
      if (!event || event.expiresAt <= at) continue;
      if (options.tenant !== undefined && event.tenant !== options.tenant) continue;
      if (match === undefined || match(event.payload)) return event;
    }
    if (flat.length < pageSize * 2) return undefined;
    cursor = [flat[flat.length - 1]!, flat[flat.length - 2]!];
  }
}

/**
 * Events that resume `step.waitForEvent`, on the driver's Redis and under its hash tag, stamped with the server's
 * clock (or the test clock override): one clock for every publisher and waiter. Publish and purge are scripts
 * ({@link LUA_EVENT_PUBLISH}, {@link LUA_EVENT_PURGE}); a lookup walks the name's events in publish order, a page at a
 * time, because the match is the caller's function.
 */
export function redisEventBusOn(ctx: RedisContext, pageSize: number = DEFAULT_PAGE): EventBus {
  const now = async (): Promise<number> => {
    if (ctx.clock) return ctx.clock.now();
    const [s, us] = await ctx.client.time();
    return Number(s) * 1000 + Math.floor(Number(us) / 1000);
  };
  return {
    now,
    async publish(name, payload, options = {}) {
      assertEventPublish(name, payload, options);
      const id = uuidv7(await now());
      const text = JSON.stringify(payload);
      const ttl = options.ttlMs ?? DEFAULT_EVENT_TTL_MS;
      const reply = await ctx.run('eventPublish', [
        name,
        text,
        options.tenant ?? NULL_ARG,
        ttl,
        id,
      ]);
      const [at, exp] = Array.isArray(reply) ? reply.map(Number) : [];
      return {
        id,
        name,
        payload: JSON.parse(text) as JsonValue,
        tenant: options.tenant ?? null,
        publishedAt: at!,
        expiresAt: exp!,
      };
    },
    find: (name, sinceMs, match, options) =>
      findEvent(ctx, now, pageSize, name, sinceMs, match, options),
    async purgeExpired() {
      return Number(await ctx.run('eventPurge', ['expired']));
    },
    async reset() {
      await ctx.run('eventPurge', ['all']);
    },
  };
}

/** Options of {@link redisEventBus}. */
export interface RedisEventBusOptions {
  /** The ioredis client (or Cluster) to publish and look up on; the caller owns it (an event bus has no close). */
  readonly client: Redis | Cluster;
  /** The deployment's name, as the driver's (default `jobs`): events live under the same hash tag as its jobs. */
  readonly prefix?: string;
  /** FOR TESTS ONLY: the clock override, as `RedisJobDriverOptions.clock` (default: the server's `TIME`). */
  readonly clock?: Clock;
  /** Events one lookup reads per round trip (default 100). */
  readonly pageSize?: number;
}

/** The Redis {@link EventBus}: give it the same client and prefix as the driver, so both read one clock and one tag. */
export function redisEventBus(options: RedisEventBusOptions): EventBus {
  const ctx = redisContext(options.client, redisKeyPrefix(options.prefix ?? 'jobs'), options.clock);
  return redisEventBusOn(ctx, options.pageSize);
}
