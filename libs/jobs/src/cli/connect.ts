import type { BackfillLedger } from '../backfill/ledger';
import type { JobDriver } from '../driver/job-driver';
import { JobsError } from '../errors/jobs-error';
import { loadDriverPeer, type PeerPackageLoader } from '../nest/backends.peer';

/** What the CLI opened: the driver, what the backend carries beside it, and how to let go of them. */
export interface CliBackend {
  readonly driver: JobDriver;
  /** The backfill ledger, when the backend keeps one (`x jobs show`, `x db backfill`). */
  readonly backfills?: BackfillLedger;
  /** The PostgreSQL executor, when the backend is one (`x db backfill` reads the app's migrations table through it). */
  readonly executor?: {
    query<R>(text: string, values: readonly unknown[]): Promise<{ readonly rows: R[] }>;
  };
  close(): Promise<void>;
}

/** Where the CLI connects, from its options and the environment. */
export interface ConnectOptions {
  /** `--url`: a `postgres://` / `postgresql://` or `redis://` / `rediss://` URL. */
  readonly url?: string;
  /** `--schema`: the PostgreSQL schema the jobs tables live in (default: `search_path`). */
  readonly schema?: string;
  /** `--prefix`: the Redis deployment prefix (default `jobs`). */
  readonly prefix?: string;
}

type OpenedBackend = CliBackend;

interface PostgresPackage {
  postgresBackend(
    source: { readonly url: string; readonly poolSize?: number; readonly idleConnections?: number },
    options: { readonly schema?: string; readonly migrate?: boolean },
  ): Promise<OpenedBackend>;
}

interface RedisPackage {
  redisBackend(options: { readonly url: string; readonly prefix?: string }): Promise<OpenedBackend>;
}

/** The lazily loaded driver packages; tests may pass other loaders. */
export interface PeerLoaders {
  readonly postgres: PeerPackageLoader;
  readonly redis: PeerPackageLoader;
}

const LOADERS: PeerLoaders = {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when named
  postgres: () => require('@ultimat3/jobs-pg') as unknown,
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when named
  redis: () => require('@ultimat3/jobs-redis') as unknown,
};

/**
 * The URL the CLI connects to: `--url`, else — by `JOBS_DRIVER` when it is `redis` or `postgres`, else whichever is
 * set, PostgreSQL first — `DATABASE_URL` or `REDIS_URL`. None: `X_DRIVER_UNAVAILABLE` naming all three.
 */
export function connectionUrl(options: ConnectOptions, env: NodeJS.ProcessEnv): string {
  // a variable set to nothing (`DATABASE_URL=` in an .env file) is not set
  const set = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const pick = env['JOBS_DRIVER'] === 'redis' ? set('REDIS_URL') : undefined;
  const url = options.url ?? pick ?? set('DATABASE_URL') ?? set('REDIS_URL');
  if (url === undefined || url === '') {
    throw new JobsError(
      'X_DRIVER_UNAVAILABLE',
      'x has nowhere to connect: no --url, DATABASE_URL or REDIS_URL.',
      {
        fix: 'Pass --url postgres://… (or redis://…), or set DATABASE_URL / REDIS_URL.',
      },
    );
  }
  return url;
}

/**
 * Opens the backend a URL names through its driver package, loaded only now (`@ultimat3/jobs-pg` for postgres://,
 * `@ultimat3/jobs-redis` for redis://): a missing package is `X_PEER_MISSING` with its install line. PostgreSQL is
 * opened with `migrate: false` — an operator's command never changes the schema; the app's boot migrates.
 */
export async function openCliBackend(
  options: ConnectOptions,
  env: NodeJS.ProcessEnv,
  loaders: PeerLoaders = LOADERS,
): Promise<CliBackend> {
  const url = connectionUrl(options, env);
  const scheme = /^([a-z]+):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') {
    const pg = loadDriverPeer<PostgresPackage>(
      {
        driver: 'postgres',
        packageName: '@ultimat3/jobs-pg',
        install: ['@ultimat3/jobs-pg', 'pg'],
        entry: 'postgresBackend',
      },
      loaders.postgres,
    );
    // one command, then close(): no connection worth keeping open through a quiet spell
    return pg.postgresBackend(
      { url, poolSize: 2, idleConnections: 0 },
      { migrate: false, ...(options.schema === undefined ? {} : { schema: options.schema }) },
    );
  }
  if (scheme === 'redis' || scheme === 'rediss') {
    const redis = loadDriverPeer<RedisPackage>(
      {
        driver: 'redis',
        packageName: '@ultimat3/jobs-redis',
        install: ['@ultimat3/jobs-redis', 'ioredis'],
        entry: 'redisBackend',
      },
      loaders.redis,
    );
    return redis.redisBackend({
      url,
      ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
    });
  }
  throw new JobsError(
    'X_DRIVER_UNAVAILABLE',
    `x cannot connect to a ${scheme === undefined ? 'URL with no scheme' : `${scheme}:// URL`}: only postgres:// and redis:// are known.`,
    {
      fix: 'Pass --url postgres://user@host/db or --url redis://host:6379.',
    },
  );
}
