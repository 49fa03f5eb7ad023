export * from './decorators/job.decorator';
export * from './decorators/step.decorator';
export * from './decorators/task.decorator';
export * from './decorators/backfill.decorator';
export * from './http';
export * from './health';
export * from './metrics';
export type { JobsConfig } from './jobs.config';
export * from './jobs.feature';
export * from './jobs.module';
export * from './jobs.module-definition';
export * from './jobs.options';
export * from './jobs.runtime';
export * from './jobs.service';
export * from './nest-jobs.logger';
export {
  RETENTION_JOB,
  RETENTION_QUEUE,
  RETENTION_TASK,
  type JobsRetentionOptions,
} from './retention/jobs-retention';
export { JobsTimerListing } from './schedule/schedule-registry.listing';
export * from './scheduler.host';
export * from './task.registry';
export * from './worker.host';
