/** A running throwaway `redis-server` (see `throwaway-redis.mjs`). */
export interface ThrowawayRedis {
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  readonly pid: number | undefined;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s); removes its directory unless `keepDir`. */
  stop(options?: { readonly keepDir?: boolean }): Promise<void>;
}

/** Options of {@link startThrowawayRedis}. */
export interface ThrowawayRedisOptions {
  readonly name?: string;
  readonly aof?: boolean;
  readonly hint?: string;
  readonly timeoutMs?: number;
  readonly port?: number;
  readonly dir?: string;
  /** More `redis-server` flags, e.g. `['--cluster-enabled', 'yes']`. */
  readonly args?: readonly string[];
}

/** Starts a `redis-server` on loopback; see `throwaway-redis.mjs`. */
export function startThrowawayRedis(options?: ThrowawayRedisOptions): Promise<ThrowawayRedis>;
