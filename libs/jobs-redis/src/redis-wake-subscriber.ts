import { Redis, type Cluster } from 'ioredis';

/** What the wake hears from its subscriber connection. */
export interface WakeSubscriberEvents {
  /** A message on a sharded channel. */
  onMessage(channel: string, message: string): void;
  /** The subscription may be gone (connection lost, subscription dropped, owner moved): not live until re-proven. */
  onLost(): void;
  /** SSUBSCRIBE was answered on a (new) connection: time to prove it with a probe. */
  onSubscribed(): void;
}

/** The wake's subscriber connection. */
export interface WakeSubscriber {
  /** Drops the connection and subscribes again from scratch (on a Cluster: to the channel's owner now). */
  renew(): void;
  /** Closes it for good. */
  close(): Promise<void>;
}

/** How long a Cluster subscriber waits between two renewals while its slot's owner is unknown or unreachable. */
const RENEW_PAUSE_MS = 250;

/** CRC16 (XMODEM), as Redis Cluster hashes a key. */
function crc16(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The Cluster slot of a key: of its hash tag (the text between the first `{` and the next `}`), when non-empty. */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  return crc16(hashed) % 16_384;
}

/** A plain connection to `owner` (`host:port`) with the Cluster's node options. */
function connectTo(cluster: Cluster, owner: string): Redis {
  const at = owner.lastIndexOf(':');
  return new Redis({
    ...cluster.options.redisOptions,
    host: owner.slice(0, at),
    port: Number(owner.slice(at + 1)),
    lazyConnect: false,
  });
}

/** Asks the Cluster to re-read its slots (answers once it did, or failed: either way the caller reads `slots`). */
function refreshSlots(cluster: Cluster): Promise<void> {
  return new Promise((resolve) => cluster.refreshSlotsCache(() => resolve()));
}

/**
 * The subscriber of `channel` on `client`. On a plain client: a duplicate, subscribing again on every reconnect. On a
 * Cluster: a plain connection to the master that owns the channel's slot (where the deployment's scripts publish), that
 * FOLLOWS the owner: a failover ends the subscription — the demoted master drops it (an unsolicited `sunsubscribe`,
 * which ioredis reports as an error while the connection stays up), or the killed master's connection fails — and the
 * subscriber then re-reads the Cluster's slots and subscribes at the new owner, pausing {@link RENEW_PAUSE_MS} between
 * tries while the election is under way; the Cluster client re-reading its slots for any other reason (a MOVED) moves
 * it too.
 */
export function wakeSubscriber(
  client: Redis | Cluster,
  channel: string,
  events: WakeSubscriberEvents,
): WakeSubscriber {
  const subscriber = new ShardedSubscriber(client, channel, events);
  subscriber.start();
  return subscriber;
}

/** {@link wakeSubscriber}'s state: the connection, the owner it is at, and the renewal under way. */
class ShardedSubscriber implements WakeSubscriber {
  private readonly cluster: Cluster | undefined;
  private readonly slot: number;
  private sub: Redis | undefined;
  private owner: string | undefined;
  private closed = false;
  private pending: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: Redis | Cluster,
    private readonly channel: string,
    private readonly events: WakeSubscriberEvents,
  ) {
    this.cluster = client instanceof Redis ? undefined : client;
    this.slot = keySlot(channel);
  }

  /** Follows the Cluster's slot refreshes and opens the first connection. */
  start(): void {
    this.cluster?.on('refresh', this.onRefresh);
    this.open();
  }

  /** Drops the connection and opens one again: at once on a plain client, after a slot refresh on a Cluster. */
  renew(): void {
    if (this.closed || this.pending !== undefined) return;
    this.events.onLost();
    const { cluster } = this;
    if (cluster === undefined) {
      this.drop();
      this.open();
      return;
    }
    this.pending = setTimeout(() => {
      void refreshSlots(cluster).then(() => {
        this.pending = undefined;
        this.drop();
        this.open();
      });
    }, RENEW_PAUSE_MS);
    this.pending.unref?.();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.pending);
    this.cluster?.off('refresh', this.onRefresh);
    const s = this.sub;
    this.sub = undefined;
    if (s === undefined) return;
    s.removeAllListeners();
    s.on('error', () => undefined);
    await s.quit().catch(() => s.disconnect());
  }

  /** A Cluster re-read its slots: a new owner of the channel's slot moves the subscription there. */
  private readonly onRefresh = (): void => {
    const at = this.cluster?.slots[this.slot]?.[0];
    if (at !== undefined && this.owner !== undefined && at !== this.owner) this.renew();
  };

  private drop(): void {
    const s = this.sub;
    this.sub = undefined;
    this.owner = undefined;
    if (s === undefined) return;
    s.removeAllListeners();
    s.on('error', () => undefined);
    s.disconnect();
  }

  /** Opens a connection: a duplicate of a plain client, or one to the channel's owner (when it is known). */
  private open(): void {
    if (this.closed) return;
    const { cluster } = this;
    const at = cluster?.slots[this.slot]?.[0];
    if (cluster !== undefined && at === undefined) return this.renew();
    const s =
      cluster === undefined
        ? (this.client as Redis).duplicate({ lazyConnect: false })
        : connectTo(cluster, at!);
    this.sub = s;
    this.owner = at;
    this.watch(s);
  }

  /** Hears `s`: its messages, its subscription once it is ready, and its loss. */
  private watch(s: Redis): void {
    const { cluster, events } = this;
    s.on('smessage', (from: string, message: string) => events.onMessage(from, message));
    s.on(
      'ready',
      () =>
        void s.ssubscribe(this.channel).then(
          () => events.onSubscribed(),
          () => {
            // on a Cluster: a node that no longer owns the slot answers MOVED — its view was stale, look again
            events.onLost();
            if (cluster !== undefined) this.renew();
          },
        ),
    );
    s.on('close', () => {
      events.onLost();
      if (cluster !== undefined) this.renew();
    });
    // on a Cluster, an error is how a dropped subscription (or an unreachable owner) shows: look for the owner again
    s.on('error', () => {
      if (cluster === undefined) return;
      events.onLost();
      this.renew();
    });
  }
}
