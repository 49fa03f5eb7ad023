/**
 * Gathers the planner's statistics of `x_jobs` now, instead of at autovacuum's next visit (why: `pg-young-table.ts`).
 * A utility statement — no parameters, no rows, and it cannot be PREPAREd. `skip_locked`: when another ANALYZE, a
 * VACUUM or a DDL statement holds the table, it does nothing instead of waiting. A role that does not own the table
 * (and, on PostgreSQL 17+, lacks MAINTAIN on it) gets a WARNING and nothing analysed, never an error.
 */
export const SQL_JOBS_ANALYZE = `
analyze (skip_locked) x_jobs
`;
