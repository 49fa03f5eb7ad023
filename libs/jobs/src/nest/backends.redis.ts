import { JobsError } from '../errors/jobs-error';
import type { Clock } from '../util/clock';
import type { JobsBackend } from './backends';
import { loadDriverPeer, type PeerPackageLoader } from './backends.peer';
import type { JobsRedisClient, JobsRedisOptions } from './jobs.options';

/** The optional peer that provides `driver: 'redis'`. */
export const REDIS_PACKAGE = '@ultimat3/jobs-redis';

/** The part of `@ultimat3/jobs-redis` the module calls, read structurally from the lazily loaded package. */
export interface RedisPackage {
  redisBackend(
    options: (
      | { readonly url: string; readonly client?: undefined }
      | { readonly client: JobsRedisClient; readonly url?: undefined }
    ) & {
      readonly prefix?: string;
      readonly clock?: Clock;
      readonly connectTimeoutMs?: number;
    },
  ): Promise<JobsBackend>;
}

/**
 * The lazy `require` of the optional peer: core never imports `ioredis` or `@ultimat3/jobs-redis` statically, and
 * only naming `'redis'` loads them.
 */
export const loadRedisPackage: PeerPackageLoader = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when named
  require(REDIS_PACKAGE) as unknown;

/** The source `redis` options name: the client, else the URL (default `REDIS_URL`). */
function redisSource(
  options: JobsRedisOptions | undefined,
  env: NodeJS.ProcessEnv,
): { readonly url: string } | { readonly client: JobsRedisClient } {
  if (options !== undefined && 'client' in options) {
    if (typeof options.client?.ping !== 'function') {
      throw new JobsError(
        'X_DRIVER_UNAVAILABLE',
        'JobsModule redis.client is not an ioredis client (it has no ping()).',
        { fix: 'Pass an ioredis Redis or Cluster, or redis.url instead.' },
      );
    }
    return { client: options.client };
  }
  const url = options?.url ?? env['REDIS_URL'];
  if (typeof url !== 'string' || url === '') {
    throw new JobsError(
      'X_DRIVER_UNAVAILABLE',
      "JobsModule driver 'redis' has nowhere to connect: no redis.url, no REDIS_URL, no redis.client.",
      {
        fix: "Set REDIS_URL (redis://host:6379), or pass forRoot({ driver: 'redis', redis: { url } | { client } }).",
      },
    );
  }
  return { url };
}

/**
 * Opens `driver: 'redis'`: checks where it connects first (nothing loaded for a missing URL), loads
 * `@ultimat3/jobs-redis` lazily, and awaits its proven backend (the server answers and will not evict keys). The
 * module's explicit clock is passed through (tests); otherwise every script reads the Redis server's `TIME`.
 */
export function openRedisBackend(
  options: JobsRedisOptions | undefined,
  context: {
    readonly clock: Clock | undefined;
    readonly env: NodeJS.ProcessEnv;
    readonly load?: PeerPackageLoader;
  },
): Promise<JobsBackend> {
  const source = redisSource(options, context.env);
  const redis = loadDriverPeer<RedisPackage>(
    {
      driver: 'redis',
      packageName: REDIS_PACKAGE,
      install: [REDIS_PACKAGE, 'ioredis'],
      entry: 'redisBackend',
    },
    context.load ?? loadRedisPackage,
  );
  const { prefix, connectTimeoutMs } = options ?? {};
  return redis.redisBackend({
    ...source,
    ...(prefix === undefined ? {} : { prefix }),
    ...(context.clock === undefined ? {} : { clock: context.clock }),
    ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
  });
}
