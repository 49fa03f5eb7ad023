/**
 * Every statement the job driver runs, verbatim: one statement per constant, values only through `$n` parameters,
 * tables unqualified (found through `search_path`; the driver qualifies them for its `schema` option). Exported so a
 * DBA can read, EXPLAIN and review exactly what runs — each constant's TSDoc says why it is written the way it is.
 */
export { SQL_ACK } from './ack.sql';
export { SQL_ACK_ONE } from './ack-one.sql';
export { SQL_BACKFILL_BEGIN } from './backfill-begin.sql';
export { SQL_BACKFILL_BY_JOB } from './backfill-by-job.sql';
export { SQL_BACKFILL_FINISH } from './backfill-finish.sql';
export { SQL_BACKFILL_LIST } from './backfill-list.sql';
export { SQL_BACKFILL_PROGRESS } from './backfill-progress.sql';
export { SQL_CLAIM_WAITING } from './claim-waiting.sql';
export { SQL_CLAIM } from './claim.sql';
export { SQL_RESCUE } from './rescue.sql';
export { SQL_COUNTER_TOTALS } from './counter-totals.sql';
export { SQL_COUNTERS_ROLLUP } from './counters-rollup.sql';
export { SQL_COUNTERS } from './counters.sql';
export { SQL_ENQUEUE_BATCH } from './enqueue-batch.sql';
export { SQL_ENQUEUE_FRESH } from './enqueue-fresh.sql';
export { SQL_ENQUEUE_INSERT } from './enqueue-insert.sql';
export { SQL_ENQUEUE_MANY } from './enqueue-many.sql';
export { SQL_ENQUEUE } from './enqueue.sql';
export { SQL_GET } from './get.sql';
export { SQL_HEARTBEAT } from './heartbeat.sql';
export { SQL_JOB_CANCEL } from './job-cancel.sql';
export { SQL_JOB_PROMOTE_MANY } from './job-promote-many.sql';
export { SQL_JOB_PROMOTE } from './job-promote.sql';
export { SQL_JOB_REMOVE_MANY } from './job-remove-many.sql';
export { SQL_JOB_REMOVE } from './job-remove.sql';
export { SQL_JOB_REQUEUE_MANY } from './job-requeue-many.sql';
export { SQL_JOB_REQUEUE } from './job-requeue.sql';
export { SQL_LEASE_ACQUIRE } from './lease-acquire.sql';
export { SQL_LEASE_HOLDERS } from './lease-holders.sql';
export { SQL_LEASE_RELEASE } from './lease-release.sql';
export { SQL_LEASE_RENEW } from './lease-renew.sql';
export { SQL_LIST_BEFORE } from './list-before.sql';
export { SQL_LIST_CREATED_BEFORE } from './list-created-before.sql';
export { SQL_LIST_CREATED } from './list-created.sql';
export { SQL_LIST } from './list.sql';
export { SQL_NACK } from './nack.sql';
export { SQL_PING } from './ping.sql';
export { SQL_PROGRESS } from './progress.sql';
export { SQL_PURGE_COUNTERS } from './purge-counters.sql';
export { SQL_PURGE_EVENTS } from './purge-events.sql';
export { SQL_PURGE_JOBS } from './purge-jobs.sql';
export { SQL_PURGE_OUTBOX } from './purge-outbox.sql';
export { SQL_PURGE_WORKERS } from './purge-workers.sql';
export { SQL_QUEUE_PAUSE } from './queue-pause.sql';
export { SQL_QUEUE_RESUME } from './queue-resume.sql';
export { SQL_QUEUES_PAUSED } from './queues-paused.sql';
export { SQL_STATS } from './stats.sql';
export { SQL_TASK_FIRE_RECORD } from './task-fire-record.sql';
export { SQL_STEPS_LOAD } from './steps-load.sql';
export { SQL_STEPS_SAVE } from './steps-save.sql';
export { SQL_WORKER_BEAT } from './worker-beat.sql';
export { SQL_WORKER_LEAVE } from './worker-leave.sql';
export { SQL_WORKERS } from './workers.sql';
