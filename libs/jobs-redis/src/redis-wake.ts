import { randomUUID } from 'node:crypto';
import { systemClock, type ClaimOptions, type Clock, type TimerHandle } from '@ultimat3/jobs';
import type { Cluster, Redis } from 'ioredis';
import { wakeSubscriber, type WakeSubscriber } from './redis-wake-subscriber';

/** What a started wake tells: a queue was announced, and whether the wake is proven live. */
export interface RedisWakeListener {
  signalEnqueued(queue: string): void;
  setWakeLive(live: boolean): void;
}

/** The announcement counts a claim was sent under: a queue whose count moved since may hold rows again. */
export interface WakeMark {
  readonly sentAt: number;
  readonly all: number;
  readonly gens: ReadonlyMap<string, number>;
}

/** A queue a claim found idle: nothing claimable until `until` (local ms) unless announced since `all`/`gen`. */
interface IdleQueue {
  readonly all: number;
  readonly gen: number;
  /** The names the idle claim served; undefined: every name. */
  readonly names: ReadonlySet<string> | undefined;
  readonly until: number;
}

/**
 * The Redis wake of one driver: a dedicated connection subscribed (SSUBSCRIBE) to the deployment's sharded channel
 * `{tag}:wake`, where every script that makes a row waiting announces its queue (see the prelude). Started by the
 * first {@link RedisWake.listen} and closed with the last. It is proven live by a probe it publishes itself and sees
 * come back, and again every {@link WAKE_REPROBE_MS}; a lost connection, or a probe not back within
 * {@link WAKE_PROBE_LATE_MS} (then it subscribes again on a fresh connection), is not live until a probe comes back
 * again. On a Cluster the subscription follows its slot's owner across a failover ({@link wakeSubscriber}).
 *
 * While live it also lets the driver skip idle claims: a claim that found a queue empty records until when nothing
 * there can fall due by time alone (its first delayed row, its first lease expiry); a later claim of the same slots is
 * answered empty without a round trip while that time is ahead and no announcement (nor a write of this driver that
 * can make rows waiting: {@link RedisWake.touch}) came since the recording claim was sent. An announcement that
 * crosses the claim on the wire counts too: the counts are read when the claim is sent.
 */
export interface RedisWake {
  /** Starts the subscription (once) and tells `listener`; answers its stop. */
  listen(listener: RedisWakeListener): () => Promise<void>;
  /** Whether the subscription is proven live now. */
  readonly live: boolean;
  /** This process wrote something that can make rows claimable: every recorded idle queue is stale. */
  touch(): void;
  /** Whether a claim of `options` can be answered empty without asking Redis. */
  skips(options: ClaimOptions, served: ReadonlyMap<string, readonly string[] | undefined>): boolean;
  /** The counts now, taken when a claim is sent. */
  mark(): WakeMark;
  /** Records the queues a claim sent under `mark` found idle (`idle`: queue → due ms, server `now`); forgets the rest. */
  settle(
    mark: WakeMark,
    options: ClaimOptions,
    served: ReadonlyMap<string, readonly string[] | undefined>,
    now: number,
    idle: ReadonlyMap<string, number>,
  ): void;
  /** Stops every listener's subscription. */
  close(): Promise<void>;
}

/** The probe message: NUL-led, which no queue name can be (the value contract refuses NUL). */
const PROBE = '\u0000probe:';
/**
 * How often a live wake proves itself again: a subscriber connection that died without closing (a half-open socket)
 * would otherwise keep idle claims skipped while announcements are lost. One SPUBLISH a minute.
 */
export const WAKE_REPROBE_MS = 60_000;
/** How long a probe may take to come back before the wake is not live (the worker polls until one does). */
export const WAKE_PROBE_LATE_MS = 5_000;

/** Whether every name `slot` serves was served by the idle claim (`undefined`: every name). */
function covered(
  idle: ReadonlySet<string> | undefined,
  slot: readonly string[] | undefined,
): boolean {
  if (idle === undefined) return true;
  return slot !== undefined && slot.every((n) => idle.has(n));
}

/** Builds the wake of a driver on `client` (its connection settings are duplicated for the subscriber). */
export function redisWake(client: Redis | Cluster, prefix: string, clock?: Clock): RedisWake {
  const channel = `${prefix}wake`;
  const now = (): number => (clock ? clock.now() : Date.now());
  const listeners = new Set<RedisWakeListener>();
  const gens = new Map<string, number>();
  const idleQueues = new Map<string, IdleQueue>();
  let all = 0;
  let live = false;
  let sub: WakeSubscriber | undefined;
  let probe = '';
  const timers = clock ?? systemClock;
  let reprobe: TimerHandle | undefined;
  let late: TimerHandle | undefined;

  const setLive = (next: boolean): void => {
    if (next === live) return;
    live = next;
    if (!next) all++;
    for (const l of listeners) l.setWakeLive(next);
  };
  const onMessage = (from: string, message: string): void => {
    if (from !== channel) return;
    if (message.startsWith(PROBE)) {
      if (message !== probe) return;
      late?.cancel();
      setLive(true);
      return;
    }
    gens.set(message, (gens.get(message) ?? 0) + 1);
    for (const l of listeners) l.signalEnqueued(message);
  };
  const sendProbe = async (): Promise<void> => {
    probe = `${PROBE}${randomUUID()}`;
    late?.cancel();
    late = timers.setTimeout(() => {
      setLive(false);
      sub?.renew();
    }, WAKE_PROBE_LATE_MS);
    await client.spublish(channel, probe);
  };
  const armReprobe = (): void => {
    reprobe?.cancel();
    reprobe = timers.setTimeout(() => {
      if (sub === undefined) return;
      armReprobe();
      void sendProbe().catch(() => setLive(false));
    }, WAKE_REPROBE_MS);
  };
  const start = (): void => {
    sub = wakeSubscriber(client, channel, {
      onMessage,
      onLost: () => setLive(false),
      onSubscribed: () => void sendProbe().catch(() => setLive(false)),
    });
    armReprobe();
  };
  const stop = async (): Promise<void> => {
    const s = sub;
    sub = undefined;
    reprobe?.cancel();
    late?.cancel();
    setLive(false);
    await s?.close();
  };

  return {
    get live() {
      return live;
    },
    listen(listener) {
      listeners.add(listener);
      if (sub === undefined) start();
      else if (live) listener.setWakeLive(true);
      let stopped = false;
      return async () => {
        if (stopped) return;
        stopped = true;
        listeners.delete(listener);
        if (listeners.size === 0) await stop();
      };
    },
    touch() {
      all++;
    },
    skips(options, served) {
      // a claim carrying a registry beat (`presence`) must reach Redis to renew it
      if (!live || options.presence !== undefined || (options.excludeTenants?.length ?? 0) > 0)
        return false;
      const t = now();
      let asks = false;
      for (const slot of options.slots) {
        if ((slot.limit ?? 0) + (slot.ahead ?? 0) <= 0) continue;
        asks = true;
        const q = idleQueues.get(slot.queue);
        if (q === undefined || q.all !== all || q.gen !== (gens.get(slot.queue) ?? 0)) return false;
        if (t >= q.until || !covered(q.names, served.get(slot.queue))) return false;
      }
      return asks;
    },
    mark() {
      return { sentAt: now(), all, gens: new Map(gens) };
    },
    settle(mark, options, served, serverNow, idle) {
      const recordable = (options.excludeTenants?.length ?? 0) === 0;
      for (const slot of options.slots) {
        const due = idle.get(slot.queue);
        if (due === undefined || !recordable) {
          idleQueues.delete(slot.queue);
          continue;
        }
        const names = served.get(slot.queue);
        idleQueues.set(slot.queue, {
          all: mark.all,
          gen: mark.gens.get(slot.queue) ?? 0,
          names: names === undefined ? undefined : new Set(names),
          // measured from when the claim was sent: never later than the server's own reading
          until: due < 0 ? Infinity : mark.sentAt + (due - serverNow),
        });
      }
    },
    async close() {
      listeners.clear();
      await stop();
    },
  };
}
