export * from './jobs-health.indicator';
export * from './jobs-health.module';
export type {
  JobsHealthOptions,
  JobsOutboxThresholds,
  JobsQueueThresholds,
} from './jobs-health.options';
export { DEFAULT_OUTBOX_MAX_LAG_MS } from './jobs-health.options';
export type { JobsCheck, JobsProbeReport } from './jobs-health.probes';
export type { JobsHealthResult, JobsHealthStatus } from './terminus.peer';
