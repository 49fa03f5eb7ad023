export {
  jobDriverAgreement,
  backendConformance,
  backendConformancePlan,
  jobDriverConformance,
  type ConformancePlan,
  type MakeConformanceBackend,
  type SkippedCapability,
  type ConformanceCapabilities,
  type JobDriverConformanceOptions,
  type MakeConformanceDriver,
} from './conformance';
export { handOffConformance } from './conformance/hand-off.suite';
export { enqueueRequest, type EnqueueRequestOptions } from './enqueue-request';
export { frozenClock, type FrozenClock } from './frozen-clock';
export * from './run-jobs';
export * from '../scheduler/testing/scheduler-fleet';
export * from '../scheduler/testing/scheduler-state.conformance';
export * from '../outbox/testing/outbox-store.conformance';
export * from '../events/testing/event-bus-tenancy.conformance';
export { eventBusValuesConformance } from '../events/testing/event-bus-values.conformance';
export * from '../events/testing/tenant-events.scenario';
export * from './test-kit';
export * from '../backfill/testing/backfill-ledger.conformance';
