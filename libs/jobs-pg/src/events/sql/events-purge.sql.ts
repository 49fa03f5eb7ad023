/** Deletes every expired event. No parameters; the affected row count is the answer. */
export const SQL_EVENTS_PURGE = `
delete from x_job_events where expires_at <= now()`;
