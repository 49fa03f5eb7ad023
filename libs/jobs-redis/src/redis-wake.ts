import { randomUUID } from 'node:crypto';
import { systemClock, type ClaimOptions, type Clock, type TimerHandle } from '@ultimat3/jobs';
import type { Cluster, Redis } from 'ioredis';
import { IdleQueues } from './redis-idle-queues';
import {
  wakeSubscriber,
  type WakeSubscriber,
  type WakeSubscriberEvents,
} from './redis-wake-subscriber';

/** What a started wake tells: a queue was announced, and whether the wake is proven live. */
export interface RedisWakeListener {
  /** Told each queue another process announced. */
  signalEnqueued(queue: string): void;
  /** Told when the wake is proven live, and when it is lost. */
  setWakeLive(live: boolean): void;
}

/** The announcement counts a claim was sent under: a queue whose count moved since may hold rows again. */
export interface WakeMark {
  /** When the claim was sent (this process's clock, epoch ms). */
  readonly sentAt: number;
  /** The count every queue shares: bumped by a write of this process that can make rows claimable, or a wake gone un-live. */
  readonly all: number;
  /** Per queue, the announcements heard. */
  readonly gens: ReadonlyMap<string, number>;
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

/** Builds the wake of a driver on `client` (its connection settings are duplicated for the subscriber). */
export function redisWake(client: Redis | Cluster, prefix: string, clock?: Clock): RedisWake {
  return new SubscribedWake(client, prefix, clock);
}

/**
 * {@link redisWake}'s wake: the subscription (started by the first listener, stopped with the last), the probes that
 * prove it live, and the listeners told of each announcement; what lets its claims skip Redis is {@link IdleQueues}.
 */
class SubscribedWake extends IdleQueues implements RedisWake, WakeSubscriberEvents {
  private readonly channel: string;
  private readonly listeners = new Set<RedisWakeListener>();
  private sub: WakeSubscriber | undefined;
  private probe = '';
  private readonly timers: Clock;
  private reprobe: TimerHandle | undefined;
  private late: TimerHandle | undefined;

  constructor(
    private readonly client: Redis | Cluster,
    prefix: string,
    clock: Clock | undefined,
  ) {
    super(clock);
    this.channel = `${prefix}wake`;
    this.timers = clock ?? systemClock;
  }

  listen(listener: RedisWakeListener): () => Promise<void> {
    this.listeners.add(listener);
    if (this.sub === undefined) this.start();
    else if (this.live) listener.setWakeLive(true);
    let stopped = false;
    return async () => {
      if (stopped) return;
      stopped = true;
      this.listeners.delete(listener);
      if (this.listeners.size === 0) await this.stop();
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await this.stop();
  }

  /** A message on the subscriber's connection: this wake's probe come back, or an announced queue. */
  onMessage(from: string, message: string): void {
    if (from !== this.channel) return;
    if (message.startsWith(PROBE)) {
      if (message !== this.probe) return;
      this.late?.cancel();
      this.setLive(true);
      return;
    }
    this.announced(message);
    for (const l of this.listeners) l.signalEnqueued(message);
  }

  onLost(): void {
    this.setLive(false);
  }

  onSubscribed(): void {
    void this.sendProbe().catch(() => this.setLive(false));
  }

  private setLive(next: boolean): void {
    if (!this.flipLive(next)) return;
    for (const l of this.listeners) l.setWakeLive(next);
  }

  private async sendProbe(): Promise<void> {
    this.probe = `${PROBE}${randomUUID()}`;
    this.late?.cancel();
    this.late = this.timers.setTimeout(() => {
      this.setLive(false);
      this.sub?.renew();
    }, WAKE_PROBE_LATE_MS);
    await this.client.spublish(this.channel, this.probe);
  }

  private armReprobe(): void {
    this.reprobe?.cancel();
    this.reprobe = this.timers.setTimeout(() => {
      if (this.sub === undefined) return;
      this.armReprobe();
      void this.sendProbe().catch(() => this.setLive(false));
    }, WAKE_REPROBE_MS);
  }

  private start(): void {
    this.sub = wakeSubscriber(this.client, this.channel, this);
    this.armReprobe();
  }

  private async stop(): Promise<void> {
    const s = this.sub;
    this.sub = undefined;
    this.reprobe?.cancel();
    this.late?.cancel();
    this.setLive(false);
    await s?.close();
  }
}
