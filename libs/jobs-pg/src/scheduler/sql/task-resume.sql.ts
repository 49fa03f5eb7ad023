/** Resumes a task; a no-op when it is not paused. $1 task. Returns nothing. */
export const SQL_TASK_RESUME = `
delete from x_task_pauses p where p.task = $1::text
`;
