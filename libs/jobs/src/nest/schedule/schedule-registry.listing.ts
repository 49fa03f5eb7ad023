import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import {
  DEFAULT_RENEW_EVERY_MS,
  DEFAULT_TICK_INTERVAL_MS,
} from '../../scheduler/scheduler-options';
import type { JobsLogger } from '../../util/logger';
import {
  DEFAULT_VISIBILITY_TIMEOUT_MS,
  IDLE_POLL_CEILING_MS,
  POLL_INTERVAL_MS,
} from '../../worker/worker-options';
import type { JobsConfig } from '../jobs.config';

/**
 * The part of `@nestjs/schedule`'s `SchedulerRegistry` the listing uses, read structurally: the package is an optional
 * peer, never imported, so an app without it loads nothing and a second copy of it in `node_modules` still matches.
 */
export interface SchedulerRegistryLike {
  addInterval(name: string, handle: unknown): void;
  deleteInterval(name: string): void;
  doesExist(type: 'cron' | 'timeout' | 'interval', name: string): boolean;
}

/**
 * One of this module's own timers, as `SchedulerRegistry.getInterval(name)` answers it. A listing, not a control: the
 * timer is the module's loop, started and stopped by the app's bootstrap and shutdown. `deleteInterval(name)` (which
 * `ScheduleModule` itself calls on every interval at shutdown) removes the listing and leaves the loop running until
 * the module stops it.
 */
export class JobsTimerListing {
  /** Who runs the timer. */
  readonly owner = '@ultimat3/jobs';

  constructor(
    /** The name it is listed under (`ultimat3-jobs.scheduler.tick`, …). */
    readonly name: string,
    /** The process role that runs it. */
    readonly role: 'scheduler' | 'worker',
    /** Its period in ms; for an adaptive loop, the shortest. */
    readonly everyMs: number,
    /** What it does, in one sentence. */
    readonly description: string,
  ) {}
}

/** The timers this process will run, from its roles and options: what a `getIntervals()` should show beside the app's. */
export function jobsTimers(
  config: Pick<JobsConfig, 'roles' | 'scheduler' | 'worker'>,
  taskCount: number,
): JobsTimerListing[] {
  const timers: JobsTimerListing[] = [];
  if (config.roles.has('scheduler') && taskCount > 0) {
    const tick = config.scheduler.tickIntervalMs ?? DEFAULT_TICK_INTERVAL_MS;
    const renew = config.scheduler.renewEveryMs ?? DEFAULT_RENEW_EVERY_MS;
    timers.push(
      new JobsTimerListing(
        'ultimat3-jobs.scheduler.tick',
        'scheduler',
        tick,
        `While leading, looks at the ${taskCount} task(s)' in-memory due times at most every ${tick} ms; an idle look costs no I/O.`,
      ),
      new JobsTimerListing(
        'ultimat3-jobs.scheduler.lease-renewal',
        'scheduler',
        renew,
        `Renews the scheduler's leader lease (a standby asks for it) every ${renew} ms: one statement.`,
      ),
    );
  }
  if (config.roles.has('worker')) {
    const poll = config.worker.pollIntervalMs ?? POLL_INTERVAL_MS;
    const ceiling = config.worker.idlePollMaxMs ?? IDLE_POLL_CEILING_MS;
    const visibility = config.worker.visibilityTimeoutMs ?? DEFAULT_VISIBILITY_TIMEOUT_MS;
    const beat = config.worker.heartbeatIntervalMs ?? Math.max(1, Math.floor(visibility / 3));
    timers.push(
      new JobsTimerListing(
        'ultimat3-jobs.worker.poll',
        'worker',
        poll,
        `Claims due jobs every ${poll} ms while there is work, backing off to ${ceiling} ms idle (5 000 ms with a proven wake).`,
      ),
      new JobsTimerListing(
        'ultimat3-jobs.worker.heartbeat',
        'worker',
        beat,
        `Renews the lease of each run it holds every ${beat} ms (the lease lasts ${visibility} ms).`,
      ),
    );
  }
  return timers;
}

/** The app's `SchedulerRegistry`, when `ScheduleModule` is imported: found among the providers by name and shape. */
export function findSchedulerRegistry(
  providers: readonly InstanceWrapper[],
): SchedulerRegistryLike | undefined {
  for (const wrapper of providers) {
    const instance: unknown = wrapper.instance;
    if (wrapper.metatype?.name !== 'SchedulerRegistry' || !isRegistry(instance)) continue;
    return instance;
  }
  return undefined;
}

/**
 * Lists `timers` in `registry` beside the app's own intervals; a name already taken is left as it is (debug
 * `jobs.schedule.listing-skipped`). Answers the unlisting, which leaves alone a name the app or `ScheduleModule`'s
 * shutdown already deleted.
 */
export function listJobsTimers(
  registry: SchedulerRegistryLike,
  timers: readonly JobsTimerListing[],
  logger: JobsLogger,
): () => void {
  const listed: JobsTimerListing[] = [];
  for (const timer of timers) {
    if (registry.doesExist('interval', timer.name)) {
      logger.log('debug', 'jobs.schedule.listing-skipped', {
        name: timer.name,
        reason: 'the SchedulerRegistry already holds an interval under this name',
      });
      continue;
    }
    registry.addInterval(timer.name, timer);
    listed.push(timer);
  }
  return () => {
    for (const timer of listed.splice(0)) {
      if (registry.doesExist('interval', timer.name)) registry.deleteInterval(timer.name);
    }
  };
}

function isRegistry(value: unknown): value is SchedulerRegistryLike {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r['addInterval'] === 'function' &&
    typeof r['deleteInterval'] === 'function' &&
    typeof r['doesExist'] === 'function'
  );
}
