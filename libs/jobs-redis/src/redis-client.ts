import { InvariantError } from '@ultimat3/jobs';
import { Redis, type Cluster } from 'ioredis';

/** Where the Redis driver connects: a client the caller owns, or a URL the driver opens (and closes) itself. */
export interface RedisConnectionOptions {
  /** An ioredis client (or Cluster) the caller owns: closing the driver leaves it open. */
  readonly client?: Redis | Cluster;
  /** A `redis://` (or `rediss://`) URL: the driver opens its own client, and closing it quits that client. */
  readonly url?: string;
}

/** The client of the options: the caller's, or one opened on `url`; exactly one of them must be given. */
export function clientOf(options: RedisConnectionOptions): {
  client: Redis | Cluster;
  owned: boolean;
} {
  if ((options.client === undefined) === (options.url === undefined)) {
    throw new InvariantError(
      'redisJobDriver: pass exactly one of client and url.',
      "Pass { url: 'redis://127.0.0.1:6379' }, or { client } with an ioredis client you own.",
    );
  }
  if (options.client) return { client: options.client, owned: false };
  const client = new Redis(options.url!);
  // a lost connection reaches each caller as its command's failure (X_DRIVER_UNAVAILABLE on enqueue); ioredis would
  // otherwise print every reconnect attempt's error as unhandled
  client.on('error', () => undefined);
  return { client, owned: true };
}
