import { driverBackend, type JobsBackend } from '../driver/backend';
import { memoryBackend } from '../driver/memory';
import { JobsError } from '../errors/jobs-error';
import { InvariantError } from '../errors/runtime-errors';
import type { Clock } from '../util/clock';
import type { JobsModuleOptions, JobsPostgresOptions } from './jobs.options';
import { loadDriverPeer, type PeerPackageLoader } from './backends.peer';
import { openRedisBackend } from './backends.redis';

/** The optional peer that provides `driver: 'postgres'`. */
export const POSTGRES_PACKAGE = '@ultimat3/jobs-pg';

export type { BackendWakeTarget, JobsBackend } from '../driver/backend';

/** The part of `@ultimat3/jobs-pg` the module calls, read structurally from the lazily loaded package. */
export interface PostgresPackage {
  postgresBackend(
    source:
      | { readonly url: string; readonly poolSize?: number; readonly idleConnections?: number }
      | { readonly dataSource: object },
    options: {
      readonly clock?: Clock;
      readonly schema?: string;
      readonly migrate?: boolean;
      readonly connectTimeoutMs?: number;
    },
  ): Promise<JobsBackend>;
}

/** Loads the package behind `'postgres'`; tests pass another loader. */
export type PostgresPackageLoader = PeerPackageLoader;

/**
 * The lazy `require` of the optional peer. Core never imports `pg`, `typeorm` or `@ultimat3/jobs-pg` statically: an
 * app on the memory driver installs none of them, and only naming `'postgres'` loads them.
 */
export const loadPostgresPackage: PostgresPackageLoader = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when named
  require(POSTGRES_PACKAGE) as unknown;

function unavailable(message: string, fix: string, cause?: unknown): JobsError {
  return new JobsError(
    'X_DRIVER_UNAVAILABLE',
    message,
    cause === undefined ? { fix } : { fix, cause },
  );
}

/** Whether `value` is a backend object (`memoryBackend()`, `await postgresBackend(…)`, `await redisBackend(…)`). */
export function isJobsBackend(value: unknown): value is JobsBackend {
  if (typeof value !== 'object' || value === null) return false;
  const backend = value as Partial<JobsBackend>;
  return (
    typeof backend.driver?.claim === 'function' &&
    typeof backend.capabilities === 'object' &&
    backend.capabilities !== null &&
    typeof backend.close === 'function'
  );
}

/**
 * The backend the options name, when it needs no I/O to open: the `backend` object given, `driver: 'memory'`
 * (`memoryBackend()` on `clock`) or a driver instance (`driverBackend`, its capabilities read from its members);
 * else undefined. `backend` and `driver` together, or a `backend` that is not one, is `X_INVARIANT`.
 */
export function syncBackend(
  options: Pick<JobsModuleOptions, 'driver' | 'backend'>,
  clock: Clock,
): JobsBackend | undefined {
  const { driver, backend } = options;
  if (backend !== undefined) {
    if (driver !== undefined) {
      throw new InvariantError(
        'JobsModule takes a backend or a driver, not both.',
        "Pass forRoot({ backend }) alone (driver: 'postgres' | 'redis' | 'memory' is sugar over it).",
      );
    }
    if (!isJobsBackend(backend)) {
      throw new InvariantError(
        'JobsModule backend is not a JobsBackend (driver, capabilities, close).',
        'Pass memoryBackend(), await postgresBackend(…) or await redisBackend(…).',
      );
    }
    return backend;
  }
  if (driver === 'memory') return memoryBackend({ clock });
  if (typeof driver === 'object' && driver !== null && typeof driver.claim === 'function') {
    return driverBackend(driver);
  }
  return undefined;
}

/** `X_DRIVER_UNAVAILABLE` for a `driver` option that names nothing this build can create. */
export function unknownDriver(driver: unknown): JobsError {
  const named = typeof driver === 'string' ? `"${driver}"` : typeof driver;
  return unavailable(
    driver === undefined
      ? 'JobsModule was given neither a backend nor a driver.'
      : `JobsModule has no driver ${named}.`,
    "Pass forRoot({ backend }), or driver 'memory', 'postgres' (with @ultimat3/jobs-pg installed), 'redis' (with @ultimat3/jobs-redis installed) or a JobDriver instance.",
  );
}

/** The source `postgres` options name: the DataSource, else the URL (default `DATABASE_URL`). */
function postgresSource(
  options: JobsPostgresOptions | undefined,
  env: NodeJS.ProcessEnv,
): Parameters<PostgresPackage['postgresBackend']>[0] {
  if (options !== undefined && 'dataSource' in options) {
    if (typeof options.dataSource?.createQueryRunner !== 'function') {
      throw unavailable(
        'JobsModule postgres.dataSource is not a TypeORM DataSource (it has no createQueryRunner()).',
        'Inject the DataSource with forRootAsync({ inject: [DataSource], useFactory }).',
      );
    }
    return { dataSource: options.dataSource };
  }
  const url = options?.url ?? env['DATABASE_URL'];
  if (typeof url !== 'string' || url === '') {
    throw unavailable(
      "JobsModule driver 'postgres' has nowhere to connect: no postgres.url, no DATABASE_URL, no postgres.dataSource.",
      "Set DATABASE_URL, or pass forRoot({ driver: 'postgres', postgres: { url } | { dataSource } }).",
    );
  }
  return {
    url,
    ...(options?.poolSize === undefined ? {} : { poolSize: options.poolSize }),
    ...(options?.idleConnections === undefined ? {} : { idleConnections: options.idleConnections }),
  };
}

/** What {@link openJobsBackend} reads besides the module options. */
export interface OpenBackendContext {
  /** The module's clock, when the options named one: the Postgres statements then compare on it, not on `now()`. */
  readonly clock: Clock | undefined;
  /** The clock the memory driver runs on (the module's, else the system clock). */
  readonly memoryClock: Clock;
  readonly env: NodeJS.ProcessEnv;
  /** Loads `@ultimat3/jobs-pg` (default the lazy `require`). */
  readonly load?: PostgresPackageLoader;
  /** Loads `@ultimat3/jobs-redis` (default the lazy `require`). */
  readonly loadRedis?: PeerPackageLoader;
}

/**
 * Opens the backend the options name. A `backend` object, `'memory'` and an instance answer at once; `'postgres'` loads
 * `@ultimat3/jobs-pg` lazily, builds its pool (or reuses the DataSource) and migrates; `'redis'` loads
 * `@ultimat3/jobs-redis` lazily, connects (or reuses the client) and checks the eviction policy — each awaited by the
 * module's async provider, so bootstrap finishes only on a ready driver. A missing package is `X_PEER_MISSING` with
 * the install line; anything else unknown is `X_DRIVER_UNAVAILABLE`.
 */
export async function openJobsBackend(
  options: Pick<JobsModuleOptions, 'driver' | 'backend' | 'postgres' | 'redis'>,
  context: OpenBackendContext,
): Promise<JobsBackend> {
  const ready = syncBackend(options, context.memoryClock);
  if (ready !== undefined) return ready;
  if (options.driver === 'redis') {
    return openRedisBackend(options.redis, {
      clock: context.clock,
      env: context.env,
      ...(context.loadRedis === undefined ? {} : { load: context.loadRedis }),
    });
  }
  if (options.driver !== 'postgres') throw unknownDriver(options.driver);
  const source = postgresSource(options.postgres, context.env);
  const pg = loadDriverPeer<PostgresPackage>(
    {
      driver: 'postgres',
      packageName: POSTGRES_PACKAGE,
      install: [POSTGRES_PACKAGE, 'pg'],
      entry: 'postgresBackend',
    },
    context.load ?? loadPostgresPackage,
  );
  const { schema, migrate, connectTimeoutMs } = options.postgres ?? {};
  return pg.postgresBackend(source, {
    ...(context.clock === undefined ? {} : { clock: context.clock }),
    ...(schema === undefined ? {} : { schema }),
    ...(migrate === undefined ? {} : { migrate }),
    ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
  });
}
