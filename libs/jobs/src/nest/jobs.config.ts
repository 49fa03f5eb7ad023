import { memoryJobDriver } from '../driver/memory';
import type { JobDriver } from '../driver/job-driver';
import { DriverUnavailableError, InvariantError } from '../errors/runtime-errors';
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
import { nestJobsLogger } from './nest-jobs.logger';
import { resolveSchedulerOptions } from './scheduler.config';

/** The module options, checked and with every default filled in. */
export interface JobsConfig {
  readonly driver: JobDriver;
  readonly roles: ReadonlySet<JobsRole>;
  readonly worker: JobsModuleWorkerOptions;
  readonly scheduler: JobsModuleSchedulerOptions;
  readonly shutdownDeadlineMs: number;
  readonly clock: Clock;
  readonly logger: JobsLogger;
  readonly events: EventBus;
}

const WORKER_DURATIONS = [
  'visibilityTimeoutMs',
  'heartbeatIntervalMs',
  'pollIntervalMs',
  'idlePollMaxMs',
] as const;

/**
 * Checks `JobsModule.forRoot()` options and fills the defaults. A bad option is `X_INVARIANT` naming the field; a
 * driver this build cannot create is `X_DRIVER_UNAVAILABLE`. `env` is read for `JOBS_ROLES`.
 */
export function resolveJobsConfig(
  options: JobsModuleOptions,
  env: NodeJS.ProcessEnv = process.env,
): JobsConfig {
  if (typeof options !== 'object' || options === null) {
    throw new InvariantError(
      'JobsModule options must be an object.',
      "Pass JobsModule.forRoot({ driver: 'memory' }).",
    );
  }
  const clock = options.clock ?? systemClock;
  const roles = resolveRoles(options.roles, env['JOBS_ROLES']);
  const worker = resolveWorker(options.worker);
  const scheduler = resolveSchedulerOptions(options.scheduler);
  const shutdownDeadlineMs = resolveDeadline(options.shutdown);
  // The driver last: every other option is checked before a driver opens connections.
  return {
    driver: resolveDriver(options.driver, clock),
    roles,
    worker,
    scheduler,
    shutdownDeadlineMs,
    clock,
    logger: options.logger ?? nestJobsLogger(),
    events: options.events ?? memoryEventBus({ clock }),
  };
}

function resolveDriver(driver: unknown, clock: Clock): JobDriver {
  if (driver === 'memory') return memoryJobDriver({ clock });
  if (
    typeof driver === 'object' &&
    driver !== null &&
    typeof (driver as JobDriver).claim === 'function'
  ) {
    return driver as JobDriver;
  }
  const named = typeof driver === 'string' ? `"${driver}"` : typeof driver;
  throw new DriverUnavailableError(
    `JobsModule has no driver ${named} in this build (use 'memory' or pass a JobDriver instance)`,
  );
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
