import { qualify } from '../schema';
import { SQL_ACK } from '../sql/ack.sql';
import { SQL_ACK_ONE } from '../sql/ack-one.sql';
import { SQL_CLAIM_WAITING } from '../sql/claim-waiting.sql';
import { SQL_CLAIM_WOKEN } from '../sql/claim-woken.sql';
import { SQL_CLAIM } from '../sql/claim.sql';
import { SQL_COUNTER_TOTALS } from '../sql/counter-totals.sql';
import { SQL_COUNTERS_ROLLUP } from '../sql/counters-rollup.sql';
import { SQL_COUNTERS } from '../sql/counters.sql';
import { SQL_ENQUEUE_BATCH } from '../sql/enqueue-batch.sql';
import { SQL_ENQUEUE_FRESH } from '../sql/enqueue-fresh.sql';
import { SQL_ENQUEUE_HAND_OFF } from '../sql/enqueue-hand-off.sql';
import { SQL_ENQUEUE_INSERT } from '../sql/enqueue-insert.sql';
import { SQL_ENQUEUE_INSERT_PLAIN } from '../sql/enqueue-insert-plain.sql';
import { SQL_ENQUEUE_MANY } from '../sql/enqueue-many.sql';
import { SQL_ENQUEUE_QUIET } from '../sql/enqueue-quiet.sql';
import { SQL_ENQUEUE } from '../sql/enqueue.sql';
import { SQL_GET } from '../sql/get.sql';
import { SQL_HAND_OFF_LEAVE } from '../sql/hand-off-leave.sql';
import { SQL_HAND_OFF_REGISTER } from '../sql/hand-off-register.sql';
import { SQL_HEARTBEAT } from '../sql/heartbeat.sql';
import { SQL_JOB_CANCEL } from '../sql/job-cancel.sql';
import { SQL_JOB_PROMOTE_MANY } from '../sql/job-promote-many.sql';
import { SQL_JOB_PROMOTE } from '../sql/job-promote.sql';
import { SQL_JOB_REMOVE_MANY } from '../sql/job-remove-many.sql';
import { SQL_JOB_REMOVE } from '../sql/job-remove.sql';
import { SQL_JOB_REQUEUE_MANY } from '../sql/job-requeue-many.sql';
import { SQL_JOB_REQUEUE } from '../sql/job-requeue.sql';
import { SQL_JOBS_ANALYZE } from '../sql/jobs-analyze.sql';
import { SQL_JOBS_STATS_YOUNG } from '../sql/jobs-stats-young.sql';
import { SQL_LEASE_ACQUIRE } from '../sql/lease-acquire.sql';
import { SQL_LEASE_HOLDERS } from '../sql/lease-holders.sql';
import { SQL_LEASE_RELEASE } from '../sql/lease-release.sql';
import { SQL_LEASE_RENEW } from '../sql/lease-renew.sql';
import { SQL_LIST_BEFORE } from '../sql/list-before.sql';
import { SQL_LIST_CREATED_BEFORE } from '../sql/list-created-before.sql';
import { SQL_LIST_CREATED } from '../sql/list-created.sql';
import { SQL_LIST } from '../sql/list.sql';
import { SQL_NACK } from '../sql/nack.sql';
import { SQL_PROGRESS } from '../sql/progress.sql';
import { SQL_PURGE_COUNTERS } from '../sql/purge-counters.sql';
import { SQL_PURGE_EVENTS } from '../sql/purge-events.sql';
import { SQL_PURGE_JOBS } from '../sql/purge-jobs.sql';
import { SQL_PURGE_OUTBOX } from '../sql/purge-outbox.sql';
import { SQL_PURGE_WORKERS } from '../sql/purge-workers.sql';
import { SQL_QUEUE_PAUSE } from '../sql/queue-pause.sql';
import { SQL_QUEUE_RESUME } from '../sql/queue-resume.sql';
import { SQL_QUEUES_PAUSED } from '../sql/queues-paused.sql';
import { SQL_RESCUE } from '../sql/rescue.sql';
import { SQL_STATS } from '../sql/stats.sql';
import { SQL_TASK_FIRE_RECORD } from '../sql/task-fire-record.sql';
import { SQL_SCHEDULER_FIRES } from '../scheduler/sql/scheduler-fires.sql';
import { SQL_TASK_PAUSE } from '../scheduler/sql/task-pause.sql';
import { SQL_TASK_RESUME } from '../scheduler/sql/task-resume.sql';
import { SQL_TASKS_PAUSED } from '../scheduler/sql/tasks-paused.sql';
import { SQL_STEPS_LOAD } from '../sql/steps-load.sql';
import { SQL_STEPS_SAVE } from '../sql/steps-save.sql';
import { SQL_WORKER_BEAT } from '../sql/worker-beat.sql';
import { SQL_WORKER_LEAVE } from '../sql/worker-leave.sql';
import { SQL_WORKERS } from '../sql/workers.sql';

const STATEMENTS = {
  ack: SQL_ACK,
  ackOne: SQL_ACK_ONE,
  claim: SQL_CLAIM,
  claimWaiting: SQL_CLAIM_WAITING,
  claimWoken: SQL_CLAIM_WOKEN,
  rescue: SQL_RESCUE,
  counters: SQL_COUNTERS,
  counterTotals: SQL_COUNTER_TOTALS,
  countersRollup: SQL_COUNTERS_ROLLUP,
  enqueue: SQL_ENQUEUE,
  enqueueBatch: SQL_ENQUEUE_BATCH,
  enqueueFresh: SQL_ENQUEUE_FRESH,
  enqueueHandOff: SQL_ENQUEUE_HAND_OFF,
  enqueueInsert: SQL_ENQUEUE_INSERT,
  enqueueInsertPlain: SQL_ENQUEUE_INSERT_PLAIN,
  enqueueMany: SQL_ENQUEUE_MANY,
  enqueueQuiet: SQL_ENQUEUE_QUIET,
  get: SQL_GET,
  handOffLeave: SQL_HAND_OFF_LEAVE,
  handOffRegister: SQL_HAND_OFF_REGISTER,
  heartbeat: SQL_HEARTBEAT,
  jobCancel: SQL_JOB_CANCEL,
  jobPromote: SQL_JOB_PROMOTE,
  jobPromoteMany: SQL_JOB_PROMOTE_MANY,
  jobRemove: SQL_JOB_REMOVE,
  jobRemoveMany: SQL_JOB_REMOVE_MANY,
  jobRequeue: SQL_JOB_REQUEUE,
  jobRequeueMany: SQL_JOB_REQUEUE_MANY,
  jobsAnalyze: SQL_JOBS_ANALYZE,
  jobsStatsYoung: SQL_JOBS_STATS_YOUNG,
  leaseAcquire: SQL_LEASE_ACQUIRE,
  leaseHolders: SQL_LEASE_HOLDERS,
  leaseRelease: SQL_LEASE_RELEASE,
  leaseRenew: SQL_LEASE_RENEW,
  list: SQL_LIST,
  listBefore: SQL_LIST_BEFORE,
  listCreated: SQL_LIST_CREATED,
  listCreatedBefore: SQL_LIST_CREATED_BEFORE,
  nack: SQL_NACK,
  progress: SQL_PROGRESS,
  purgeCounters: SQL_PURGE_COUNTERS,
  purgeEvents: SQL_PURGE_EVENTS,
  purgeJobs: SQL_PURGE_JOBS,
  purgeOutbox: SQL_PURGE_OUTBOX,
  purgeWorkers: SQL_PURGE_WORKERS,
  queuePause: SQL_QUEUE_PAUSE,
  queueResume: SQL_QUEUE_RESUME,
  queuesPaused: SQL_QUEUES_PAUSED,
  stats: SQL_STATS,
  // the task pauses and fires the scheduler state keeps, read and written by the operator surface too
  taskFireRecord: SQL_TASK_FIRE_RECORD,
  taskFires: SQL_SCHEDULER_FIRES,
  taskPause: SQL_TASK_PAUSE,
  taskResume: SQL_TASK_RESUME,
  tasksPaused: SQL_TASKS_PAUSED,
  stepsLoad: SQL_STEPS_LOAD,
  stepsSave: SQL_STEPS_SAVE,
  workerBeat: SQL_WORKER_BEAT,
  workerLeave: SQL_WORKER_LEAVE,
  workers: SQL_WORKERS,
} as const;

/** Every statement the driver runs, by name, with its tables placed in the driver's schema. */
export type Statements = { readonly [K in keyof typeof STATEMENTS]: string };

/** The driver's statements for `schema` (default: unqualified, found through `search_path`), built once. */
export function statementsFor(schema?: string): Statements {
  const entries = Object.entries(STATEMENTS).map(([key, sql]) => [key, qualify(sql, schema)]);
  return Object.fromEntries(entries) as Statements;
}
