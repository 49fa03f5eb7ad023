/** Deletes every event (the test seam behind resetEventBus()). No parameters. */
export const SQL_EVENTS_RESET = `
delete from x_job_events`;
