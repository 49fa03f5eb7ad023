export {
  jobScheduler,
  type JobScheduler,
  type JobSchedulerStatus,
  type SchedulerStopOptions,
} from './job-scheduler';
export {
  DEFAULT_RENEW_EVERY_MS,
  DEFAULT_TICK_INTERVAL_MS,
  PAUSE_RECHECK_MS,
  type JobSchedulerOptions,
} from './scheduler-options';
export { DEFAULT_LEASE_TTL_MS, SCHEDULER_LEASE_KEY, type LeaseLeader } from './lease-leader';
export { leaseStoreLeader, type LeaseStoreLeaderOptions } from './lease-store-leader';
export {
  memoryLeaseLeader,
  memoryLeaseTable,
  type MemoryLease,
  type MemoryLeaseLeader,
  type MemoryLeaseLeaderOptions,
  type MemoryLeaseTable,
} from './memory-lease-leader';
export {
  MAX_TASK_FIRES,
  type SchedulerState,
  type TaskFireRecord,
  type TaskFireRequest,
  type TaskFireResult,
} from './scheduler-state';
export { memorySchedulerState, type MemorySchedulerStateOptions } from './memory-scheduler-state';
export { CRON_HORIZON_YEARS, compileCron, type CronSchedule } from './cron-schedule';
export { latestOccurrence, nextTaskRun } from './occurrences';
export { occurrenceKey } from './occurrence-requests';
export { isSupportedTimeZone } from './time-zone';
export {
  TaskDeclarationInvalidError,
  SchedulerOptionsInvalidError,
} from '../errors/scheduler-errors';
export {
  CATCH_UP_POLICIES,
  DEFAULT_MAX_CATCH_UP,
  isTaskHandle,
  task,
  type CatchUpPolicy,
  type TaskDefinition,
  type TaskDescriptor,
  type TaskEnqueueOptions,
  type TaskEntry,
  type TaskHandle,
} from '../declare/task';
