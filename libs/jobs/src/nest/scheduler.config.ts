import { driverBackend, type JobsBackend } from '../driver/backend';
import type { JobDriver } from '../driver/job-driver';
import { InvariantError } from '../errors/runtime-errors';
import type { LeaseLeader } from '../scheduler/lease-leader';
import { leaseStoreLeader } from '../scheduler/lease-store-leader';
import { memoryLeaseLeader } from '../scheduler/memory-lease-leader';
import { memorySchedulerState } from '../scheduler/memory-scheduler-state';
import type { SchedulerState } from '../scheduler/scheduler-state';
import { MAX_TIMER_MS, type Clock } from '../util/clock';
import type { JobsModuleSchedulerOptions } from './jobs.options';

const STATE_MEMBERS = [
  'load',
  'fire',
  'skipTo',
  'taskFires',
  'pauseTask',
  'resumeTask',
  'pausedTasks',
] as const satisfies readonly (keyof SchedulerState)[];

/** Whether `value` has every member of a {@link SchedulerState} (read structurally: any object can carry one). */
export function isSchedulerState(value: unknown): value is SchedulerState {
  if (typeof value !== 'object' || value === null) return false;
  const members = value as Readonly<Record<string, unknown>>;
  return STATE_MEMBERS.every((member) => typeof members[member] === 'function');
}

/** Whether `value` is a {@link LeaseLeader}: `acquire`, `release` and a `holderId`. */
export function isLeaseLeader(value: unknown): value is LeaseLeader {
  if (typeof value !== 'object' || value === null) return false;
  const leader = value as Readonly<Record<string, unknown>>;
  return (
    typeof leader['acquire'] === 'function' &&
    typeof leader['release'] === 'function' &&
    typeof leader['holderId'] === 'string'
  );
}

/**
 * Checks `JobsModule.forRoot({ scheduler })` at boot, whatever the roles, so a bad knob fails the deploy rather than
 * the first pod that holds the scheduler role. A bad field is `X_INVARIANT` naming it.
 */
export function resolveSchedulerOptions(options: unknown): JobsModuleSchedulerOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) {
    throw new InvariantError('JobsModule scheduler must be an object.');
  }
  const scheduler = options as JobsModuleSchedulerOptions;
  if (scheduler.leader !== undefined && !isLeaseLeader(scheduler.leader)) {
    throw new InvariantError(
      'JobsModule scheduler.leader is not a LeaseLeader (acquire, release, holderId).',
      'Pass leaseStoreLeader({ leases }), memoryLeaseLeader() or a driver-provided leader.',
    );
  }
  if (scheduler.state !== undefined && !isSchedulerState(scheduler.state)) {
    throw new InvariantError(
      `JobsModule scheduler.state is not a SchedulerState (${STATE_MEMBERS.join(', ')}).`,
      'Pass memorySchedulerState({ driver }) or a driver-provided durable state.',
    );
  }
  for (const field of ['tickIntervalMs', 'renewEveryMs'] as const) {
    const ms = scheduler[field];
    if (ms !== undefined && !(Number.isSafeInteger(ms) && ms >= 1 && ms <= MAX_TIMER_MS)) {
      throw new InvariantError(
        `JobsModule scheduler.${field} must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}.`,
      );
    }
  }
  return scheduler;
}

/** The election and state a scheduler host runs with, and where each came from (for the boot log). */
export interface SchedulerWiring {
  readonly leader: LeaseLeader;
  readonly state: SchedulerState;
  readonly leaderSource: 'options' | 'driver leases' | 'memory';
  readonly stateSource: 'options' | 'driver' | 'memory';
}

/**
 * Fills the scheduler's leader and state: the options first; then what the backend declares (`capabilities.leader`:
 * a lease in its lease store, so several pods on one database agree on one leader with no extra configuration;
 * `capabilities.schedulerState`: its durable state); then memory. `backend` defaults to a backend of just the driver
 * (a leader when it has leases, no state of its own).
 */
export function schedulerWiring(
  driver: JobDriver,
  clock: Clock,
  options: JobsModuleSchedulerOptions,
  backend: Pick<JobsBackend, 'capabilities' | 'schedulerState'> = driverBackend(driver),
): SchedulerWiring {
  const { capabilities } = backend;
  const leases = capabilities.leader ? driver.leases : undefined;
  const offered = capabilities.schedulerState ? backend.schedulerState : undefined;
  const leader: Pick<SchedulerWiring, 'leader' | 'leaderSource'> =
    options.leader !== undefined
      ? { leader: options.leader, leaderSource: 'options' }
      : leases !== undefined
        ? { leader: leaseStoreLeader({ leases }), leaderSource: 'driver leases' }
        : { leader: memoryLeaseLeader(), leaderSource: 'memory' };
  const state: Pick<SchedulerWiring, 'state' | 'stateSource'> =
    options.state !== undefined
      ? { state: options.state, stateSource: 'options' }
      : offered !== undefined
        ? { state: offered, stateSource: 'driver' }
        : { state: memorySchedulerState({ driver, clock }), stateSource: 'memory' };
  return { ...leader, ...state };
}
