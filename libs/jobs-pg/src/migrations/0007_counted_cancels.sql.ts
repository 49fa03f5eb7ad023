/**
 * Migration 0007: cancelled jobs are counted. `x_job_counters.cancelled` moves in the cancel statement itself (a
 * data-modifying CTE beside the row's update, as done / failed / dead move in the ack and nack), so `counters()` and
 * `counterTotals()` account for every finished row, and `rollupCounters()` folds it like the other columns.
 *
 * Adding a column with a constant default rewrites nothing on PostgreSQL 11 and later: the default is stored once in
 * the catalogue, so this is instant on a large counter table.
 */
export const MIGRATION_0007_COUNTED_CANCELS = `
alter table x_job_counters add column if not exists cancelled bigint not null default 0;
`;
