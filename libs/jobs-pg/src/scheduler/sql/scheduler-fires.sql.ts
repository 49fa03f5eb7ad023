/**
 * Per task, the last occurrence that fired and when, in code-point order of the task name.
 *
 * $1 the most rows to answer (`MAX_TASK_FIRES`, 1,000). Returns `(task, last_fired_occurrence, last_fired_at)`.
 */
export const SQL_SCHEDULER_FIRES = `
select s.task, s.last_fired_occurrence, s.last_fired_at
from x_scheduler_state s
where s.last_fired_occurrence is not null
order by s.task collate "C"
limit $1::int
`;
