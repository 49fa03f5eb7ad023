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
  const cluster = client instanceof Redis ? undefined : client;
  const slot = keySlot(channel);
  let sub: Redis | undefined;
  let owner: string | undefined;
  let closed = false;
  let pending: NodeJS.Timeout | undefined;

  const drop = (): void => {
    const s = sub;
    sub = undefined;
    owner = undefined;
    if (s === undefined) return;
    s.removeAllListeners();
    s.on('error', () => undefined);
    s.disconnect();
  };
  const open = (): void => {
    if (closed) return;
    const at = cluster?.slots[slot]?.[0];
    if (cluster !== undefined && at === undefined) return renew();
    const s =
      cluster === undefined
        ? (client as Redis).duplicate({ lazyConnect: false })
        : connectTo(cluster, at!);
    sub = s;
    owner = at;
    s.on('smessage', (from: string, message: string) => events.onMessage(from, message));
    s.on(
      'ready',
      () =>
        void s.ssubscribe(channel).then(
          () => events.onSubscribed(),
          () => {
            // on a Cluster: a node that no longer owns the slot answers MOVED — its view was stale, look again
            events.onLost();
            if (cluster !== undefined) renew();
          },
        ),
    );
    s.on('close', () => {
      events.onLost();
      if (cluster !== undefined) renew();
    });
    // on a Cluster, an error is how a dropped subscription (or an unreachable owner) shows: look for the owner again
    s.on('error', () => {
      if (cluster === undefined) return;
      events.onLost();
      renew();
    });
  };
  /** Drops the connection and opens one again: at once on a plain client, after a slot refresh on a Cluster. */
  const renew = (): void => {
    if (closed || pending !== undefined) return;
    events.onLost();
    if (cluster === undefined) {
      drop();
      open();
      return;
    }
    pending = setTimeout(() => {
      void refreshSlots(cluster).then(() => {
        pending = undefined;
        drop();
        open();
      });
    }, RENEW_PAUSE_MS);
    pending.unref?.();
  };
  const onRefresh = (): void => {
    const at = cluster?.slots[slot]?.[0];
    if (at !== undefined && owner !== undefined && at !== owner) renew();
  };
  cluster?.on('refresh', onRefresh);
  open();

  return {
    renew,
    async close() {
      closed = true;
      clearTimeout(pending);
      cluster?.off('refresh', onRefresh);
      const s = sub;
      sub = undefined;
      if (s === undefined) return;
      s.removeAllListeners();
      s.on('error', () => undefined);
      await s.quit().catch(() => s.disconnect());
    },
  };
}
