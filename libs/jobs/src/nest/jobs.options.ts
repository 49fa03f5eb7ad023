import type { JobsBackend } from '../driver/backend';
import type { JobDriver } from '../driver/job-driver';
import type { EventBus } from '../events/event-bus';
import type { LeaseLeader } from '../scheduler/lease-leader';
import type { SchedulerState } from '../scheduler/scheduler-state';
import type { Clock } from '../util/clock';
import type { JobsLogFormat, JobsLogger } from '../util/logger';
import type { JobWorkerOptions } from '../worker/worker-options';
import type { JobsRetentionOptions } from './retention/jobs-retention';

/** What a process does: enqueue (`web`), run jobs (`worker`), fire tasks (`scheduler`), publish the outbox (`relay`). */
export type JobsRole = 'web' | 'worker' | 'scheduler' | 'relay';

/** Every role, in the order they are documented. */
export const JOBS_ROLES: readonly JobsRole[] = ['web', 'worker', 'scheduler', 'relay'];

/** The roles of a process that names none and has no `JOBS_ROLES` in its environment. */
export const DEFAULT_JOBS_ROLES: readonly JobsRole[] = ['web', 'worker'];

/** How long a shutdown waits for in-flight runs before it stops waiting (default 25 s). */
export const DEFAULT_SHUTDOWN_DEADLINE_MS = 25_000;

/** The worker knobs `JobsModule.forRoot({ worker })` passes on to `jobWorker()`. */
export type JobsModuleWorkerOptions = Pick<
  JobWorkerOptions,
  | 'queues'
  | 'concurrency'
  | 'visibilityTimeoutMs'
  | 'heartbeatIntervalMs'
  | 'pollIntervalMs'
  | 'idlePollMaxMs'
  | 'workerId'
  | 'limits'
>;

/** The scheduler knobs `JobsModule.forRoot({ scheduler })` passes on to `jobScheduler()`. */
export interface JobsModuleSchedulerOptions {
  /**
   * The election (default: a lease in the driver's lease store, `leaseStoreLeader({ leases: driver.leases })`, when
   * the driver has one; else `memoryLeaseLeader()`, always the leader — two pods would both fire).
   */
  readonly leader?: LeaseLeader;
  /**
   * Watermarks, fires and pauses (default: the driver's own durable `schedulerState` when it carries one, else
   * `memorySchedulerState({ driver })` — a redeploy then forgets what it missed).
   */
  readonly state?: SchedulerState;
  /** How often a leader looks at its in-memory due times (default 1 000 ms). */
  readonly tickIntervalMs?: number;
  /** How often the lease is renewed or asked for (default 10 000 ms: a third of the lease's TTL). */
  readonly renewEveryMs?: number;
}

/**
 * The part of a TypeORM `DataSource` the Postgres backend uses (structural: core never imports `typeorm`). Pass the
 * app's initialised DataSource — with `forRootAsync({ inject: [DataSource], useFactory })` — and its pool is reused.
 */
export interface JobsPostgresDataSource {
  /** A TypeORM `QueryRunner` on the DataSource's pool. */
  createQueryRunner(): unknown;
}

/** What the `'postgres'` driver shares by either source. */
interface JobsPostgresCommonOptions {
  /** The schema the tables live in (default: found through `search_path`). */
  readonly schema?: string;
  /** Apply the migrations the database lacks at boot (default true; safe when many processes boot at once). */
  readonly migrate?: boolean;
  /**
   * How long one wait on the database may take, in ms (default 10 000): the boot's connect and its migration each,
   * then every connection the pool or a LISTEN session opens. Whatever is wrong with the database at boot — a refused
   * port, an unknown host or database, bad credentials, a malformed URL, a host that accepts TCP and never answers —
   * fails the boot within it with `X_DRIVER_UNAVAILABLE` naming the host, port and database (never the password).
   */
  readonly connectTimeoutMs?: number;
}

/**
 * Where `driver: 'postgres'` connects: a URL (default `DATABASE_URL`; the module builds, owns and closes a pool), or
 * the app's TypeORM DataSource (reused, never a second pool; the app keeps owning it).
 */
export type JobsPostgresOptions =
  | (JobsPostgresCommonOptions & {
      /** A `postgres://` connection string (default `process.env.DATABASE_URL`). */
      readonly url?: string;
      /** The pool's size (default 10). */
      readonly poolSize?: number;
      /**
       * Connections the pool keeps open while nothing runs (default 1, at most `poolSize`), the first opened at boot:
       * the first enqueue after a quiet spell does not pay a new connection (~35 ms against ~5 on a local server).
       * 0 lets every connection close after 10 s idle.
       */
      readonly idleConnections?: number;
    })
  | (JobsPostgresCommonOptions & { readonly dataSource: JobsPostgresDataSource });

/**
 * The part of an ioredis client (`Redis` or `Cluster`) the module checks (structural: core never imports `ioredis`).
 * Pass the app's own client to share its connection; the app keeps owning it.
 */
export interface JobsRedisClient {
  /** `PING`: checks the connection answers. */
  ping(): Promise<unknown>;
}

/** What the `'redis'` driver shares by either source. */
interface JobsRedisCommonOptions {
  /**
   * The deployment's name (default `jobs`): every key lives under `{<prefix>}:` — one hash tag, so the deployment is
   * legal on Redis Cluster. Two apps on one Redis keep apart by their prefixes.
   */
  readonly prefix?: string;
  /**
   * How long the boot's first answer from Redis may take, in ms (default 10 000). A server out of reach fails the boot
   * within it with `X_DRIVER_UNAVAILABLE`; one whose `maxmemory-policy` is not `noeviction` with
   * `X_REDIS_EVICTION_POLICY`.
   */
  readonly connectTimeoutMs?: number;
}

/**
 * Where `driver: 'redis'` connects: a URL (default `REDIS_URL`; the module opens, owns and closes the client), or the
 * app's ioredis client (reused; the app keeps owning it and closes it after the module).
 */
export type JobsRedisOptions =
  | (JobsRedisCommonOptions & {
      /** A `redis://` or `rediss://` connection string (default `process.env.REDIS_URL`). */
      readonly url?: string;
    })
  | (JobsRedisCommonOptions & {
      /** An ioredis `Redis` or `Cluster` the app owns (needs the peer `ioredis`). */
      readonly client: JobsRedisClient;
    });

/** The drivers `JobsModule` can create by name, or a driver instance. */
export type JobsDriverOption = 'memory' | 'postgres' | 'redis' | JobDriver;

/** Options of `JobsModule.forRoot()` / `forRootAsync()`. */
export interface JobsModuleOptions {
  /**
   * The backend: a driver plus the capabilities it declares (`memoryBackend()`, `await postgresBackend(…)` from
   * `@ultimat3/jobs-pg`, `await redisBackend(…)` from `@ultimat3/jobs-redis`). Its event bus becomes the module's
   * (unless `events` is given), its scheduler state and leader the scheduler's (unless `scheduler` names them), its
   * wake the worker's. The module owns it from then on: at shutdown, after every host drained, it closes the driver,
   * then the backend. Give either `backend` or `driver`.
   */
  readonly backend?: JobsBackend;
  /**
   * Sugar over {@link JobsModuleOptions.backend}: `'memory'` (`memoryBackend()`: one process, nothing durable across
   * restarts), `'postgres'` (the module opens `postgresBackend` from the optional peer `@ultimat3/jobs-pg`; see
   * {@link JobsModuleOptions.postgres}), `'redis'` (`redisBackend` from the optional peers `@ultimat3/jobs-redis` and
   * `ioredis`; see {@link JobsModuleOptions.redis}) or a `JobDriver` instance (a backend of just the driver, its
   * capabilities read from its members). Give either `driver` or `backend`.
   */
  readonly driver?: JobsDriverOption;
  /** Where `driver: 'postgres'` connects (default `{ url: process.env.DATABASE_URL }`). */
  readonly postgres?: JobsPostgresOptions;
  /**
   * Where `driver: 'redis'` connects (default `{ url: process.env.REDIS_URL }`). Redis 7 or later, with
   * `maxmemory-policy noeviction` (checked at boot) and the append-only file on for durability. Its event bus becomes
   * the module's (unless `events` is given).
   */
  readonly redis?: JobsRedisOptions;
  /** The roles of this process (default: `JOBS_ROLES`, a comma list, else `['web', 'worker']`). */
  readonly roles?: readonly JobsRole[];
  /** Worker knobs, used when the roles include `worker`. */
  readonly worker?: JobsModuleWorkerOptions;
  /** Scheduler knobs, used when the roles include `scheduler`. */
  readonly scheduler?: JobsModuleSchedulerOptions;
  /** Shutdown: how long the drain waits for in-flight runs (default 25 000 ms). */
  readonly shutdown?: { readonly deadlineMs?: number };
  /** The one source of time (default the system clock; tests pass `frozenClock()`). */
  readonly clock?: Clock;
  /**
   * Where structured events go (default Nest's `Logger` with the context `Jobs`, one line per event in `logFormat`).
   * `nestJobsLogger({ … })` builds the default with other options (a stack beside each error, another sink).
   */
  readonly logger?: JobsLogger;
  /**
   * How the default logger prints (default `'text'`): `'text'` is one `event key=value …` line through Nest's logger;
   * `'json'` is one JSON object per line (`time`, `level`, `event`, then the fields) for a log shipper. Ignored when
   * `logger` is given.
   */
  readonly logFormat?: JobsLogFormat;
  /** The bus `publishEvent` and `step.waitForEvent` share (default a memory bus on the clock). */
  readonly events?: EventBus;
  /**
   * The module's own retention sweep over the package's tables (default on, with {@link JobsRetentionOptions}'
   * defaults: finished jobs and published outbox rows after 7 days, dead jobs after 30, hourly). Its job is
   * registered in every process, its task fired by the scheduler leader only. `false` registers neither.
   */
  readonly retention?: JobsRetentionOptions | false;
}
