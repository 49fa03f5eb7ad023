import { InvariantError, JobsError } from '@ultimat3/jobs';
import { Redis, type Cluster } from 'ioredis';

/** Where the Redis driver connects: a client the caller owns, or a URL the driver opens (and closes) itself. */
export interface RedisConnectionOptions {
  /** An ioredis client (or Cluster) the caller owns: closing the driver leaves it open. */
  readonly client?: Redis | Cluster;
  /** A `redis://` (or `rediss://`) URL: the driver opens its own client, and closing it quits that client. */
  readonly url?: string;
}

/**
 * The client of the options: the caller's, or one opened on `url`; exactly one of them must be given, else
 * `X_INVARIANT` naming `caller` (`redisJobDriver`, `redisBackend`) before anything connects.
 */
export function clientOf(
  options: RedisConnectionOptions,
  caller = 'redisJobDriver',
): {
  client: Redis | Cluster;
  owned: boolean;
} {
  if (
    typeof options !== 'object' ||
    options === null ||
    (options.client === undefined) === (options.url === undefined)
  ) {
    throw new InvariantError(
      `${caller}: pass exactly one of client and url.`,
      "Pass { url: 'redis://127.0.0.1:6379' }, or { client } with an ioredis client you own.",
    );
  }
  if (options.client) return { client: options.client, owned: false };
  const client = openUrl(options.url!, caller);
  // a lost connection reaches each caller as its command's failure (X_DRIVER_UNAVAILABLE on enqueue); ioredis would
  // otherwise print every reconnect attempt's error as unhandled
  client.on('error', () => undefined);
  return { client, owned: true };
}

/** A scheme other than Redis's: ioredis would read the whole URL as a unix socket's path (password and all). */
const FOREIGN_SCHEME = /^(?!rediss?:\/\/)[a-z][a-z0-9+.-]*:\/\//i;

/**
 * A client on `url`, or `X_DRIVER_UNAVAILABLE` (`meta.reason` `url`) for a URL ioredis cannot read — where ioredis threw
 * a bare `TypeError: Invalid URL` carrying the URL, password included — or one of another scheme (`mysql://…`, which
 * ioredis took for a socket path and the boot's last failure then repeated). The URL is never repeated back.
 */
function openUrl(url: string, caller: string): Redis {
  const refuse = (what: string): JobsError =>
    new JobsError(
      'X_DRIVER_UNAVAILABLE',
      `${caller}: the Redis URL ${what} (not repeated here: it may hold a password).`,
      {
        fix: 'Pass redis://[user:password@]host:6379[/db] (rediss:// for TLS) as redis.url or REDIS_URL, or an ioredis client.',
        meta: { reason: 'url' },
      },
    );
  if (FOREIGN_SCHEME.test(url)) throw refuse('is not redis:// or rediss://');
  try {
    return new Redis(url);
  } catch {
    throw refuse('is malformed');
  }
}

/**
 * Closes a client the driver opened, leaving nothing that holds the process: a connected one is quit (its replies
 * flushed first); one that is not connected is ended at once ({@link endOwnedClient}) — a `QUIT` would wait in its
 * offline queue for a Redis that may never come back.
 */
export async function closeOwnedClient(client: Redis | Cluster): Promise<void> {
  if (client.status === 'ready') {
    await client.quit().catch(() => endOwnedClient(client));
    return;
  }
  await endOwnedClient(client);
}

/**
 * Ends a client the driver opened and resolves once nothing of it holds the process: no reconnect pending, no socket,
 * no timer. `disconnect()` cancels the pending reconnect and ends the client's last socket, arming ioredis's
 * `disconnectTimeout` (2 s) until that socket closes: a live one closes (the client then emits `end`), but one already
 * destroyed (a Redis out of reach: between two attempts, or before the next attempt's socket exists) never closes
 * again — the listeners the disconnect added for that `close` are then run here, there being nothing left to wait for.
 */
export async function endOwnedClient(client: Redis | Cluster): Promise<void> {
  if (client.status === 'end') return;
  const stream =
    client instanceof Redis ? (client.stream as Redis['stream'] | undefined) : undefined;
  const waiting = new Set(stream?.listeners('close') ?? []);
  const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
  client.disconnect();
  if (stream === undefined || !stream.destroyed) return ended;
  for (const listener of stream.listeners('close')) {
    if (waiting.has(listener)) continue;
    stream.removeListener('close', listener as () => void);
    (listener as () => void).call(stream);
  }
}
