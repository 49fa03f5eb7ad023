export * from './jobs-health.indicator';
export * from './jobs-health.module';
export type { JobsHealthOptions, JobsQueueThresholds } from './jobs-health.options';
export type { JobsCheck, JobsProbeReport } from './jobs-health.probes';
export type { JobsHealthResult, JobsHealthStatus } from './terminus.peer';
