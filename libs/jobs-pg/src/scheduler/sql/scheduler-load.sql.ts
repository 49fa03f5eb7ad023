/**
 * The watermarks of the named tasks, in one read whatever their number.
 *
 * $1 tasks text[]. Returns `(task, watermark)` for each task that was ever armed; a task never armed is absent.
 */
export const SQL_SCHEDULER_LOAD = `
select s.task, s.watermark from x_scheduler_state s where s.task = any($1::text[])
`;
