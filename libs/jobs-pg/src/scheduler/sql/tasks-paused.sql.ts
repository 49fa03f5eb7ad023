/** Every paused task. No parameters. Returns `(task)` rows in code-point order. */
export const SQL_TASKS_PAUSED = `
select p.task from x_task_pauses p order by p.task collate "C"
`;
