import type { BackendCapabilities, JobsBackend } from '../../driver/backend';
import { eventBusTenancyConformance } from '../../events/testing/event-bus-tenancy.conformance';
import { eventBusValuesConformance } from '../../events/testing/event-bus-values.conformance';
import { schedulerStateConformance } from '../../scheduler/testing/scheduler-state.conformance';
import { frozenClock, type FrozenClock } from '../frozen-clock';
import { ackManySuite } from './ack-many.suite';
import { claimSuite } from './claim.suite';
import { countersSuite } from './counters.suite';
import { enqueueSuite } from './enqueue.suite';
import { failuresSuite } from './failures.suite';
import { handOffConformance } from './hand-off.suite';
import {
  useHarness,
  type Harness,
  type JobDriverConformanceOptions,
  type MakeConformanceDriver,
} from './harness';
import { introspectionSuite } from './introspection.suite';
import { leasesSuite } from './leases.suite';
import { leaderSuite } from './leader.suite';
import { namesSuite } from './names.suite';
import { backendConformancePlan, skippedLine, type ConformancePlan } from './plan';
import { rescueSuite } from './rescue.suite';
import { settleSuite } from './settle.suite';
import { statsSuite } from './stats.suite';
import { stepsSuite } from './steps.suite';
import { loadFastCheck } from './values-arbitraries';
import { valuesOperatorSuite } from './values-operator.suite';
import { valuesProgressSuite } from './values-progress.suite';
import { valuesPropertiesSuite } from './values-properties.suite';
import { valuesRegressionSuite } from './values-regressions.suite';

export { jobDriverAgreement } from './values-agreement';
export type {
  ConformanceCapabilities,
  JobDriverConformanceOptions,
  MakeConformanceDriver,
} from './harness';
export {
  backendConformancePlan,
  CAPABILITY_SUITES,
  CORE_SUITES,
  type ConformancePlan,
  type SkippedCapability,
} from './plan';

/** Builds the backend under test over EMPTY storage, reading time from `clock`. Called once per test. */
export type MakeConformanceBackend = (clock: FrozenClock) => Promise<JobsBackend> | JobsBackend;

/**
 * THE conformance entry point: call it from the backend's own spec file with the capabilities it declares. Runs the
 * core suites, then every suite a declared capability calls for ({@link backendConformancePlan}); each capability not
 * declared is replaced by one check that the backend really lacks it, and the describe title names what was skipped
 * (`backend conformance: redis (skipped: none)`). `makeBackend` is called once per test with a fresh frozen clock and
 * must answer a backend over EMPTY storage reading every time from that clock, declaring exactly `declared`; it is
 * closed after its test. Answers the plan it ran. Runs under jest (it uses its globals).
 */
export function backendConformance(
  name: string,
  declared: BackendCapabilities,
  makeBackend: MakeConformanceBackend,
): ConformancePlan {
  if (declared.leader && !declared.leases) {
    throw new Error(`conformance: ${name} declares leader without leases (the leader is a lease)`);
  }
  if (declared.handOff && !declared.wake) {
    throw new Error(`conformance: ${name} declares handOff without wake (startWake starts it)`);
  }
  const plan = backendConformancePlan(declared);
  // its property suites need fast-check: without it, X_PEER_MISSING before a single test is registered
  loadFastCheck();
  describe(`backend conformance: ${name} (${skippedLine(plan)})`, () => {
    let backend: JobsBackend | undefined;
    const h = useHarness(async (clock) => (backend = await makeBackend(clock)).driver);
    afterEach(async () => {
      const closing = backend;
      backend = undefined;
      await closing?.close();
    });
    const current = (): JobsBackend => {
      if (backend === undefined) throw new Error('conformance: no backend outside a test');
      return backend;
    };

    it('declares what it was registered with, names its kind, and closes idempotently', async () => {
      const b = current();
      expect(b.capabilities).toEqual(declared);
      expect(b.kind).toBe(b.driver.kind);
      expect(typeof b.kind).toBe('string');
      expect(b.kind.length).toBeGreaterThan(0);
      await b.driver.close();
      await b.driver.close();
    });

    memberChecks(declared, current);
    driverSuites(h, declared);
  });

  const fresh = async (): Promise<JobsBackend> => makeBackend(frozenClock());
  if (declared.events) {
    const make = async () => {
      const b = await fresh();
      if (b.events === undefined) throw new Error(`conformance: ${name} declares events, has none`);
      return { bus: b.events, close: () => b.close() };
    };
    eventBusTenancyConformance(name, make);
    eventBusValuesConformance(name, make);
  }
  if (declared.handOff) handOffConformance(name, makeBackend);
  if (declared.schedulerState) {
    schedulerStateConformance(name, async (clock) => {
      const b = await makeBackend(clock);
      if (b.schedulerState === undefined) {
        throw new Error(`conformance: ${name} declares schedulerState, has none`);
      }
      return { state: b.schedulerState, driver: b.driver };
    });
  }
  return plan;
}

/** Each declared capability's member is there; each undeclared one's is not (where the type lets it be absent). */
function memberChecks(declared: BackendCapabilities, current: () => JobsBackend): void {
  const members: Readonly<Record<string, (b: JobsBackend) => unknown>> = {
    events: (b) => b.events,
    leases: (b) => b.driver.leases,
    introspection: (b) => b.driver.introspect,
    schedulerState: (b) => b.schedulerState,
    wake: (b) => b.startWake,
    batchAck: (b) => b.driver.ackMany,
  };
  for (const [capability, member] of Object.entries(members)) {
    const has = declared[capability as keyof BackendCapabilities];
    it(`${has ? 'declares' : 'declares no'} ${capability}, and ${has ? 'has it' : 'has none'}`, () => {
      if (has) expect(member(current())).toBeDefined();
      else expect(member(current())).toBeUndefined();
    });
  }
}

/** The driver suites: the core ones always, then each one a declared capability calls for. */
function driverSuites(h: Harness, declared: BackendCapabilities): void {
  enqueueSuite(h);
  claimSuite(h);
  rescueSuite(h);
  namesSuite(h);
  settleSuite(h);
  statsSuite(h);
  if (declared.steps) stepsSuite(h);
  valuesRegressionSuite(h);
  valuesPropertiesSuite(h);
  valuesProgressSuite(h);
  failuresSuite(h);
  if (declared.introspection) {
    introspectionSuite(h);
    countersSuite(h);
    valuesOperatorSuite(h);
  }
  if (declared.leases) leasesSuite(h);
  if (declared.leader) leaderSuite(h);
  if (declared.batchAck) ackManySuite(h);
}

/**
 * The driver suites alone, for a bare driver: {@link backendConformance} over a backend of just the driver, whose
 * capabilities are the driver's own members (steps; leases, introspection and batch ack unless `options.capabilities`
 * declares them absent; a leader when it has leases). A backend's spec calls `backendConformance` instead.
 */
export function jobDriverConformance(
  name: string,
  makeDriver: MakeConformanceDriver,
  options: JobDriverConformanceOptions = {},
): ConformancePlan {
  const c = options.capabilities ?? {};
  const leases = c.leases !== false;
  const declared: BackendCapabilities = {
    steps: true,
    events: false,
    leases,
    introspection: c.introspect !== false,
    schedulerState: false,
    leader: leases,
    wake: false,
    batchAck: c.batchAck !== false,
    handOff: false,
  };
  return backendConformance(name, declared, async (clock) => {
    const driver = await makeDriver(clock);
    return { kind: driver.kind, driver, capabilities: declared, close: () => Promise.resolve() };
  });
}
