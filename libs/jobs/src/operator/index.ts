export * from './job-views';
export * from './declarations';
export { introspectionOf } from './operator-driver';
export { redactJson } from './redact';
export { listJobs, inspectDeadLetters, type ListJobsOptions } from './list-jobs';
export { inspectJob, type InspectJobOptions } from './inspect-job';
export {
  retryFromStep,
  cancelJob,
  removeJob,
  promoteJob,
  type JobActionOptions,
} from './job-actions';
export * from './bulk';
export * from './queues';
export * from './tasks';
