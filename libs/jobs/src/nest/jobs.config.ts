import type { JobDriver } from '../driver/job-driver';
import { JobsError } from '../errors/jobs-error';
import { InvariantError } from '../errors/runtime-errors';
import type { EventBus } from '../events/event-bus';
import { memoryEventBus } from '../events/memory-event-bus';
import { systemClock, type Clock } from '../util/clock';
import type { JobsLogger } from '../util/logger';
import {
  DEFAULT_JOBS_ROLES,
  DEFAULT_SHUTDOWN_DEADLINE_MS,
  JOBS_ROLES,
  type JobsModuleOptions,
  type JobsModuleSchedulerOptions,
  type JobsModuleWorkerOptions,
  type JobsRole,
} from './jobs.options';
import {
  openJobsBackend,
  syncBackend,
  unknownDriver,
  type JobsBackend,
  type PostgresPackageLoader,
} from './backends';
import { nestJobsLogger } from './nest-jobs.logger';
import { resolveSchedulerOptions } from './scheduler.config';
import {
  assertWorkerTimings,
  DEFAULT_VISIBILITY_TIMEOUT_MS,
  POLL_INTERVAL_MS,
} from '../worker/worker-options';

/** The module options, checked and with every default filled in. */
export interface JobsConfig {
  /** The backend the module opened (or was given): its declared capabilities decide what is wired. */
  readonly backend: JobsBackend;
  /** `backend.driver`. */
  readonly driver: JobDriver;
  /** Closes what the module opened under the driver (a `'postgres'` pool): after `driver.close()`, last of all. */
  readonly closeBackend: () => Promise<void>;
  /** Starts the backend's cross-process wake for a worker, when it has one. */
  readonly startWake?: JobsBackend['startWake'];
  /** Starts the backend's outbox wake for a relay, when it has one. */
  readonly startOutboxWake?: JobsBackend['startOutboxWake'];
  /** The roles this process plays (`web`, `worker`, `scheduler`, `relay`). */
  readonly roles: ReadonlySet<JobsRole>;
  /** The worker options, defaults filled in. */
  readonly worker: JobsModuleWorkerOptions;
  /** The scheduler options, defaults filled in. */
  readonly scheduler: JobsModuleSchedulerOptions;
  /** How long the drain waits for in-flight runs, in ms (default 25 000). */
  readonly shutdownDeadlineMs: number;
  /** The time source every host reads. */
  readonly clock: Clock;
  /** Where structured events go. */
  readonly logger: JobsLogger;
  /** The bus `publishEvent` and `step.waitForEvent` share. */
  readonly events: EventBus;
}

const WORKER_DURATIONS = [
  'visibilityTimeoutMs',
  'heartbeatIntervalMs',
  'pollIntervalMs',
  'idlePollMaxMs',
] as const;

/** The module options apart from the driver, checked and with every default filled in. */
export type JobsSettings = Omit<
  JobsConfig,
  'backend' | 'driver' | 'closeBackend' | 'startWake' | 'startOutboxWake'
>;

/**
 * Checks every `JobsModule.forRoot()` option except the driver and fills the defaults; a bad option is `X_INVARIANT`
 * naming the field. Runs before any driver opens a connection. `env` is read for `JOBS_ROLES`.
 */
export function resolveJobsSettings(
  options: JobsModuleOptions,
  env: NodeJS.ProcessEnv = process.env,
): JobsSettings {
  if (typeof options !== 'object' || options === null) {
    throw new InvariantError(
      'JobsModule options must be an object.',
      "Pass JobsModule.forRoot({ driver: 'memory' }).",
    );
  }
  const clock = options.clock ?? systemClock;
  return {
    roles: resolveRoles(options.roles, env['JOBS_ROLES']),
    worker: resolveWorker(options.worker),
    scheduler: resolveSchedulerOptions(options.scheduler),
    shutdownDeadlineMs: resolveDeadline(options.shutdown),
    clock,
    logger:
      options.logger ??
      nestJobsLogger(options.logFormat === undefined ? {} : { format: options.logFormat }),
    events: options.events ?? memoryEventBus({ clock }),
  };
}

/**
 * The config for a driver that opens with no I/O (`'memory'`, an instance). `'postgres'` and `'redis'` open
 * asynchronously —
 * {@link loadJobsConfig}, which the module runs — and is `X_DRIVER_UNAVAILABLE` here, as is an unknown driver.
 */
export function resolveJobsConfig(
  options: JobsModuleOptions,
  env: NodeJS.ProcessEnv = process.env,
): JobsConfig {
  const settings = resolveJobsSettings(options, env);
  const backend = syncBackend(options, settings.clock);
  if (backend === undefined) {
    if (options.driver !== 'postgres' && options.driver !== 'redis') {
      throw unknownDriver(options.driver);
    }
    throw new JobsError(
      'X_DRIVER_UNAVAILABLE',
      `JobsModule driver '${options.driver}' opens asynchronously.`,
      {
        fix: 'Use loadJobsConfig() (JobsModule.forRoot does).',
      },
    );
  }
  return { ...settings, backend, driver: backend.driver, closeBackend: () => backend.close() };
}

/**
 * Checks the options, then opens the driver — for `'postgres'`, loading `@ultimat3/jobs-pg` lazily, building the pool
 * (or reusing the DataSource) and migrating. What `JobsModule` awaits in its async config provider, so bootstrap
 * finishes only on a ready driver. `load` replaces the lazy `require` (tests).
 */
export async function loadJobsConfig(
  options: JobsModuleOptions,
  env: NodeJS.ProcessEnv = process.env,
  load?: PostgresPackageLoader,
): Promise<JobsConfig> {
  const settings = resolveJobsSettings(options, env);
  // The driver last: every other option is checked before a driver opens connections.
  const backend = await openJobsBackend(options, {
    clock: options.clock,
    memoryClock: settings.clock,
    env,
    ...(load === undefined ? {} : { load }),
  });
  // A durable backend's bus carries events across processes; an explicit `events` option still wins.
  const events = options.events ?? backend.events ?? settings.events;
  return {
    ...settings,
    events,
    backend,
    driver: backend.driver,
    closeBackend: () => backend.close(),
    ...(backend.startWake === undefined ? {} : { startWake: backend.startWake }),
    ...(backend.startOutboxWake === undefined ? {} : { startOutboxWake: backend.startOutboxWake }),
  };
}

function resolveRoles(
  roles: readonly unknown[] | undefined,
  fromEnv: string | undefined,
): ReadonlySet<JobsRole> {
  const source =
    roles ??
    (fromEnv
      ? fromEnv
          .split(',')
          .map((r) => r.trim())
          .filter(Boolean)
      : undefined);
  const list = source ?? DEFAULT_JOBS_ROLES;
  const where = roles === undefined && source !== undefined ? 'JOBS_ROLES' : 'roles';
  if (!Array.isArray(list) || list.length === 0) {
    throw new InvariantError(
      `JobsModule ${where} must be a non-empty list.`,
      `Name at least one of ${JOBS_ROLES.join(', ')}.`,
    );
  }
  for (const role of list) {
    if (!JOBS_ROLES.includes(role as JobsRole)) {
      throw new InvariantError(
        `JobsModule ${where} names an unknown role ${JSON.stringify(role)}.`,
        `Use only ${JOBS_ROLES.join(', ')}.`,
      );
    }
  }
  return new Set(list as JobsRole[]);
}

function resolveWorker(worker: JobsModuleWorkerOptions | undefined): JobsModuleWorkerOptions {
  if (worker === undefined) return {};
  if (typeof worker !== 'object' || worker === null) {
    throw new InvariantError('JobsModule worker must be an object.');
  }
  for (const field of WORKER_DURATIONS) {
    const value = worker[field];
    if (
      value !== undefined &&
      !(typeof value === 'number' && Number.isFinite(value) && value > 0)
    ) {
      throw new InvariantError(
        `JobsModule worker.${field} must be a positive number of milliseconds.`,
      );
    }
  }
  // the worker's own minimums (visibility ≥ 1 s, heartbeat ≤ half of it), at boot rather than when the worker starts
  const visibility = worker.visibilityTimeoutMs ?? DEFAULT_VISIBILITY_TIMEOUT_MS;
  assertWorkerTimings(
    visibility,
    worker.heartbeatIntervalMs ?? Math.max(1, Math.floor(visibility / 3)),
    worker.pollIntervalMs ?? POLL_INTERVAL_MS,
  );
  const counts =
    typeof worker.concurrency === 'object' && worker.concurrency !== null
      ? Object.values(worker.concurrency)
      : worker.concurrency === undefined
        ? []
        : [worker.concurrency];
  if (counts.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new InvariantError(
      'JobsModule worker.concurrency must be a whole number ≥ 1, or a table of them per queue.',
    );
  }
  if (worker.queues !== undefined) {
    if (
      !Array.isArray(worker.queues) ||
      worker.queues.some((q) => typeof q !== 'string' || q === '')
    ) {
      throw new InvariantError('JobsModule worker.queues must be a list of queue names.');
    }
  }
  return worker;
}

function resolveDeadline(shutdown: JobsModuleOptions['shutdown']): number {
  const ms = shutdown?.deadlineMs ?? DEFAULT_SHUTDOWN_DEADLINE_MS;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
    throw new InvariantError(
      'JobsModule shutdown.deadlineMs must be a number of milliseconds ≥ 0.',
    );
  }
  return ms;
}
