import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { memoryLeaseLeader } from '../scheduler/memory-lease-leader';
import { memorySchedulerState } from '../scheduler/memory-scheduler-state';
import { frozenClock } from '../testing/frozen-clock';
import { resolveJobsConfig } from './jobs.config';
import type { JobsModuleOptions } from './jobs.options';
import { driverSchedulerState, schedulerWiring } from './scheduler.config';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return errorCodeOf(error);
  }
  return 'returned';
}

/** Scheduler options as a JS caller might hand them over, unchecked by the compiler. */
const withScheduler = (scheduler: unknown): JobsModuleOptions =>
  ({ driver: 'memory', scheduler }) as unknown as JobsModuleOptions;

describe('forRoot({ scheduler })', () => {
  it('is checked at boot whatever the roles: a bad field is X_INVARIANT', () => {
    expect(resolveJobsConfig({ driver: 'memory' }, {}).scheduler).toEqual({});
    for (const bad of [
      42,
      { leader: { acquire: () => true } },
      { state: { load: () => new Map() } },
      { tickIntervalMs: 0 },
      { renewEveryMs: 1.5 },
      { tickIntervalMs: 2 ** 31 },
    ]) {
      expect(codeOf(() => resolveJobsConfig(withScheduler(bad), {}))).toBe('X_INVARIANT');
    }
    const clock = frozenClock();
    const ok = {
      leader: memoryLeaseLeader(),
      state: memorySchedulerState({ driver: memoryJobDriver({ clock }) }),
      tickIntervalMs: 500,
      renewEveryMs: 5_000,
    };
    expect(resolveJobsConfig(withScheduler(ok), {}).scheduler).toBe(ok);
  });
});

describe('schedulerWiring', () => {
  const clock = frozenClock();

  it('prefers the options, then what the driver offers, then memory', () => {
    const memory = memoryJobDriver({ clock });
    const driverState = memorySchedulerState({ driver: memory, clock });
    const offering: JobDriver = Object.assign({}, memory, { schedulerState: driverState });
    const bare: JobDriver = { ...memory, leases: undefined };
    const leader = memoryLeaseLeader();
    const state = memorySchedulerState({ driver: memory, clock });

    expect(schedulerWiring(offering, clock, { leader, state })).toMatchObject({
      leader,
      state,
      leaderSource: 'options',
      stateSource: 'options',
    });
    expect(schedulerWiring(offering, clock, {})).toMatchObject({
      state: driverState,
      leaderSource: 'driver leases',
      stateSource: 'driver',
    });
    expect(schedulerWiring(bare, clock, {})).toMatchObject({
      leaderSource: 'memory',
      stateSource: 'memory',
    });
  });

  it('reads a driver’s schedulerState structurally, ignoring one that is not a state', () => {
    const memory = memoryJobDriver({ clock });
    expect(driverSchedulerState(memory)).toBeUndefined();
    expect(driverSchedulerState(Object.assign({}, memory, { schedulerState: {} }))).toBeUndefined();
  });
});
