import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { memoryLeaseLeader } from '../scheduler/memory-lease-leader';
import { memorySchedulerState } from '../scheduler/memory-scheduler-state';
import { frozenClock } from '../testing/frozen-clock';
import { resolveJobsConfig } from './jobs.config';
import type { JobsModuleOptions } from './jobs.options';
import { driverBackend } from '../driver/backend';
import { schedulerWiring } from './scheduler.config';
import { codeOf } from '../../test/outcomes';

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

  it('prefers the options, then what the backend declares, then memory', () => {
    const memory = memoryJobDriver({ clock });
    const driverState = memorySchedulerState({ driver: memory, clock });
    const plain = driverBackend(memory);
    const offering = {
      ...plain,
      capabilities: { ...plain.capabilities, schedulerState: true },
      schedulerState: driverState,
    };
    const bare: JobDriver = { ...memory, leases: undefined };
    const leader = memoryLeaseLeader();
    const state = memorySchedulerState({ driver: memory, clock });

    expect(schedulerWiring(memory, clock, { leader, state }, offering)).toMatchObject({
      leader,
      state,
      leaderSource: 'options',
      stateSource: 'options',
    });
    expect(schedulerWiring(memory, clock, {}, offering)).toMatchObject({
      state: driverState,
      leaderSource: 'driver leases',
      stateSource: 'driver',
    });
    expect(schedulerWiring(bare, clock, {})).toMatchObject({
      leaderSource: 'memory',
      stateSource: 'memory',
    });
  });

  it('wires only what the backend declares: an undeclared state or leader is not read off its members', () => {
    const memory = memoryJobDriver({ clock });
    const plain = driverBackend(memory);
    const undeclared = {
      capabilities: { ...plain.capabilities, schedulerState: false, leader: false },
      schedulerState: memorySchedulerState({ driver: memory, clock }),
    };
    expect(schedulerWiring(memory, clock, {}, undeclared)).toMatchObject({
      leaderSource: 'memory',
      stateSource: 'memory',
    });
    const smuggled: JobDriver = Object.assign({}, memory, {
      schedulerState: undeclared.schedulerState,
    });
    expect(schedulerWiring(smuggled, clock, {})).toMatchObject({ stateSource: 'memory' });
  });
});
