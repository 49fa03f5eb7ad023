/**
 * Pauses a task: a leader finds it paused when its next occurrence falls due. Idempotent.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 task. Returns nothing.
 */
export const SQL_TASK_PAUSE = `
insert into x_task_pauses (task, paused_at)
values ($2::text, coalesce($1::timestamptz, now()))
on conflict (task) do nothing
`;
