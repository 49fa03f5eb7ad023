import { claimSuite } from './claim.suite';
import { countersSuite } from './counters.suite';
import { enqueueSuite } from './enqueue.suite';
import { failuresSuite } from './failures.suite';
import {
  useHarness,
  type JobDriverConformanceOptions,
  type MakeConformanceDriver,
} from './harness';
import { introspectionSuite } from './introspection.suite';
import { leasesSuite } from './leases.suite';
import { namesSuite } from './names.suite';
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

/**
 * The suite every job driver passes: call it from the driver's own spec file.
 * `makeDriver` is called once per test with a fresh frozen clock and must answer a driver over EMPTY storage, reading
 * every time from that clock; each driver is closed after its test. The operator surface and the lease store are
 * expected present unless `options.capabilities` declares them absent (`introspect: false`, `leases: false`), in
 * which case the suite checks the driver really lacks them. Runs under jest (it uses its globals).
 */
export function jobDriverConformance(
  name: string,
  makeDriver: MakeConformanceDriver,
  options: JobDriverConformanceOptions = {},
): void {
  const capabilities = options.capabilities ?? {};
  // its property suites need fast-check: without it, X_PEER_MISSING before a single test is registered
  loadFastCheck();
  describe(`job driver conformance: ${name}`, () => {
    const h = useHarness(makeDriver);

    it('names its kind and closes idempotently', async () => {
      expect(typeof h.driver().kind).toBe('string');
      expect(h.driver().kind.length).toBeGreaterThan(0);
      await h.driver().close();
      await h.driver().close();
    });

    enqueueSuite(h);
    claimSuite(h);
    namesSuite(h);
    settleSuite(h);
    statsSuite(h);
    stepsSuite(h);
    valuesRegressionSuite(h);
    valuesPropertiesSuite(h);
    valuesProgressSuite(h);
    failuresSuite(h);

    if (capabilities.introspect === false) {
      it('declares no operator surface, and has none', () => {
        expect(h.driver().introspect).toBeUndefined();
      });
    } else {
      introspectionSuite(h);
      countersSuite(h);
      valuesOperatorSuite(h);
    }

    if (capabilities.leases === false) {
      it('declares no lease store, and has none', () => {
        expect(h.driver().leases).toBeUndefined();
      });
    } else {
      leasesSuite(h);
    }
  });
}
