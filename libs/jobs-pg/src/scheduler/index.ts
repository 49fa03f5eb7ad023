export { postgresSchedulerState, type PostgresSchedulerStateOptions } from './pg-scheduler-state';
export { postgresLeaseLeader, type PostgresLeaseLeaderOptions } from './pg-lease-leader';
export { SQL_SCHEDULER_FIRE } from './sql/scheduler-fire.sql';
