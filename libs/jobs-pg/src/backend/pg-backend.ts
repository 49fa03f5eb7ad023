import { Client, Pool } from 'pg';
import { InvariantError } from '@ultimat3/jobs';
import type {
  BackendCapabilities,
  Clock,
  EventBus,
  JobsBackend,
  JobsLogger,
  SchedulerState,
} from '@ultimat3/jobs';
import { OUTBOX_WAKE_CHANNEL } from '../outbox/wake-channel';
import { startQueueWake, type QueueWake } from '../wake/queue-wake';
import { startWorkerWake, type WorkerWakeTarget } from '../wake/worker-wake';
import { statementsFor } from '../driver/statements';
import { within } from './within';
import { postgresJobDriver, type PostgresJobDriver } from '../driver/pg-driver';
import { postgresEventBus } from '../events/pg-event-bus';
import type { PgExecutor } from '../executor/pg-executor';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { guardPoolClients } from '../executor/pool-client-guard';
import { typeormExecutor, type TypeormDataSourceLike } from '../executor/typeorm-executor';
import { postgresSchedulerState } from '../scheduler/pg-scheduler-state';
import { quoteSchema } from '../schema';
import { postgresBackfillLedger } from '../backfill/pg-backfill-ledger';
import { bootOverExecutor, bootOverUrl, resolveConnectTimeout, type BootStep } from './boot-check';
import { connectionTarget, dataSourceTarget } from './connection-target';
import { keptWarmSql } from './kept-warm';
import { openKept, poolOptions, wakeClientOptions, type PoolShape } from './pool-options';

/** Where the backend's statements go: a URL (a pool is built and owned), the app's TypeORM DataSource, or an executor. */
export type PostgresBackendSource =
  | ({
      /** A `postgres://` connection string. */
      readonly url: string;
    } & PoolShape)
  | {
      /** The app's initialised TypeORM `DataSource`: its pool is reused, never a second one. */
      readonly dataSource: TypeormDataSourceLike;
    }
  | {
      /** Any executor; the caller keeps owning what it runs on. */
      readonly executor: PgExecutor;
    };

/** Options of {@link postgresBackend}. */
export interface PostgresBackendOptions {
  /** The clock every statement compares and stamps with (default: the database's `now()`; tests pass a frozen one). */
  readonly clock?: Clock;
  /** The schema the tables live in (default: found through `search_path`). */
  readonly schema?: string;
  /**
   * Apply the migrations the database lacks before answering (default true; safe when many processes boot at once).
   * `false` migrates nothing; over a `url` the boot then checks that `x_jobs` is there, and no jobs tables fail it
   * with `X_DRIVER_UNAVAILABLE`, `meta.reason` `schema-missing` (over a DataSource or an executor it sends nothing: the
   * app may run its migrations on it after the boot).
   */
  readonly migrate?: boolean;
  /**
   * How long one wait on the database may take (default 10 000 ms): the boot's connect and its migration each, then
   * every connection the pool or a LISTEN session opens. A boot that cannot connect in time fails with
   * `X_DRIVER_UNAVAILABLE` naming the host, port and database — a host that accepts TCP and never answers included.
   */
  readonly connectTimeoutMs?: number;
  /** Told of an error on an idle pooled connection (the server restarted); the pool drops that connection. */
  readonly onPoolError?: (error: Error) => void;
}

/** The Postgres driver with its durable scheduler state, read structurally by `SchedulerHost`. */
export interface PostgresBackendDriver extends PostgresJobDriver {
  /** Watermarks, fires and pauses in `x_scheduler_state` / `x_task_pauses`, on the driver's executor and clock. */
  readonly schedulerState: SchedulerState;
}

/** An open Postgres backend: the driver, the executor under it, and `close()` for what it opened. */
export interface PostgresBackend extends JobsBackend {
  /** The Postgres driver, with its `schedulerState`. */
  readonly driver: PostgresBackendDriver;
  /** The executor every statement of the backend runs through. */
  readonly executor: PgExecutor;
  /** The event bus over `x_job_events`, on the database's clock: what `step.waitForEvent` reads across processes. */
  readonly events: EventBus;
  /** Watermarks, fires and pauses in `x_scheduler_state` / `x_task_pauses` (the same object as the driver's). */
  readonly schedulerState: SchedulerState;
  /**
   * Starts the cross-process wake for a worker: one LISTEN session dialled from the backend's connection string
   * (absent when the backend was handed an executor, or a DataSource with no `url`).
   */
  readonly startWake?: (target: WorkerWakeTarget, logger: JobsLogger) => QueueWake;
  /**
   * Starts the outbox relay's wake: a proven LISTEN on `x_outbox_wake` calling `onWake` per committed staging, and
   * `onLive` when it is proven and when it is lost.
   */
  readonly startOutboxWake?: (
    onWake: () => void,
    logger: JobsLogger,
    onLive?: (live: boolean) => void,
  ) => QueueWake;
  /** Ends the pool it built from a URL (idempotent); a DataSource or executor stays the caller's. Call it last. */
  close(): Promise<void>;
}

function isSource<K extends string>(source: unknown, key: K): source is Record<K, unknown> {
  return typeof source === 'object' && source !== null && key in source;
}

/** Where the statements go: a pool built (and warmed) from a url, the DataSource's executor or the executor given. */
async function openSource(
  source: PostgresBackendSource,
  options: PostgresBackendOptions,
  connectTimeoutMs: number,
  step: BootStep,
): Promise<{ readonly pool: Pool | undefined; readonly executor: PgExecutor }> {
  let pool: Pool | undefined;
  let executor: PgExecutor;
  if (isSource(source, 'url') && typeof source.url === 'string' && source.url !== '') {
    const config = poolOptions(source.url, source, connectTimeoutMs);
    // the boot runs on a session of its own, so a failure leaves no pool behind
    await bootOverUrl(source.url, connectionTarget(source.url), step);
    pool = new Pool(config);
    pool.on('error', (error) => options.onPoolError?.(error));
    // before the first checkout: openKept's connections are handed out new, as pgPoolExecutor's are
    guardPoolClients(pool);
    await openKept(pool, config.min, keptWarmSql(statementsFor(options.schema)), connectTimeoutMs);
    executor = pgPoolExecutor(pool);
  } else if (isSource(source, 'dataSource') && typeof source.dataSource === 'object') {
    executor = typeormExecutor(source.dataSource as TypeormDataSourceLike);
    await bootOverExecutor(executor, dataSourceTarget(source.dataSource as object), step);
    // the app's pool: the warm goes to the connection it hands out (the boot's, idle), bounded, and whatever it
    // answers is not the boot's — a warm that failed or is late only leaves the first statement to plan cold
    const warm = executor
      .query(keptWarmSql(statementsFor(options.schema)), [])
      .catch(() => undefined);
    await within(warm, connectTimeoutMs);
  } else if (isSource(source, 'executor') && typeof source.executor === 'object') {
    executor = source.executor as PgExecutor;
    await bootOverExecutor(executor, undefined, step);
  } else {
    throw new InvariantError(
      'postgresBackend needs { url }, { dataSource } or { executor }.',
      'Pass { url: process.env.DATABASE_URL }, { dataSource } with your TypeORM DataSource, or { executor }.',
    );
  }
  return { pool, executor };
}

/**
 * Opens the PostgreSQL backend: checks the database and migrates (unless told not to) within `connectTimeoutMs` per
 * step, then builds a pool from `url` (or a `typeormExecutor` over the app's DataSource, or takes the executor given)
 * and a {@link PostgresBackendDriver} on it — the driver augmented with its `schedulerState`. Every way the database
 * can be wrong at boot is `X_DRIVER_UNAVAILABLE` (`DatabaseUnreachableError`) naming the host, port and database.
 */
export async function postgresBackend(
  source: PostgresBackendSource,
  options: PostgresBackendOptions = {},
): Promise<PostgresBackend> {
  // options first: a bad one is refused before anything connects
  const connectTimeoutMs = resolveConnectTimeout(options.connectTimeoutMs);
  if (options.schema !== undefined) quoteSchema(options.schema);
  const step = {
    timeoutMs: connectTimeoutMs,
    migrate: options.migrate !== false,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
  };
  const { pool, executor } = await openSource(source, options, connectTimeoutMs, step);

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => (closed ??= pool ? pool.end() : Promise.resolve());
  const backend = postgresBackendOver(executor, options);
  const sql = statementsFor(options.schema);
  const url = connectionStringOf(source);
  if (url === undefined) return { ...backend, close };
  const listener = (): Client => new Client(wakeClientOptions(url, connectTimeoutMs));
  return {
    ...backend,
    capabilities: { ...backend.capabilities, wake: true, handOff: true },
    close,
    startWake: (target: WorkerWakeTarget, logger: JobsLogger): QueueWake =>
      startWorkerWake({ listener, executor, target, logger, driver: backend.driver, sql }),
    startOutboxWake: (
      onWake: () => void,
      logger: JobsLogger,
      onLive?: (live: boolean) => void,
    ): QueueWake =>
      startQueueWake({
        listener,
        executor,
        channel: OUTBOX_WAKE_CHANNEL,
        onWake: () => onWake(),
        ...(onLive === undefined ? {} : { onLive }),
        logger,
      }),
  };
}

/**
 * What the Postgres backend declares: everything, batch ack included. `wake` only with a connection string a LISTEN
 * session can dial ({@link postgresBackend} sets it then).
 */
export const POSTGRES_CAPABILITIES: BackendCapabilities = {
  steps: true,
  events: true,
  leases: true,
  introspection: true,
  schedulerState: true,
  leader: true,
  wake: false,
  batchAck: true,
  handOff: false,
};

/**
 * The Postgres backend over an executor the caller owns and has already migrated, with no boot check and no wake
 * (nothing to dial a LISTEN session from): the driver, its scheduler state and the event bus, on `options.clock`.
 * `close()` closes nothing. What {@link postgresBackend} builds on, and what a test over a shared database uses.
 */
export function postgresBackendOver(
  executor: PgExecutor,
  options: Pick<PostgresBackendOptions, 'clock' | 'schema'> = {},
): PostgresBackend {
  const settings = {
    executor,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.schema === undefined ? {} : { schema: options.schema }),
  };
  const schedulerState = postgresSchedulerState(settings);
  const driver: PostgresBackendDriver = { ...postgresJobDriver(settings), schedulerState };
  return {
    kind: driver.kind,
    driver,
    executor,
    capabilities: POSTGRES_CAPABILITIES,
    events: postgresEventBus(
      options.schema === undefined ? { executor } : { executor, schema: options.schema },
    ),
    schedulerState,
    backfills: postgresBackfillLedger(settings),
    close: () => Promise.resolve(),
  };
}

/** The connection string a LISTEN session can dial: the url given, or the DataSource's own `url` option. */
function connectionStringOf(source: PostgresBackendSource): string | undefined {
  if (isSource(source, 'url') && typeof source.url === 'string' && source.url !== '')
    return source.url;
  if (
    isSource(source, 'dataSource') &&
    typeof source.dataSource === 'object' &&
    source.dataSource !== null
  ) {
    const options = (source.dataSource as { options?: { url?: unknown } }).options;
    if (typeof options?.url === 'string' && options.url !== '') return options.url;
  }
  return undefined;
}
