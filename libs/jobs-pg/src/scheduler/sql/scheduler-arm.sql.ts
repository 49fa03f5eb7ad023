/**
 * Arms a task: its first watermark, only when it has none. Two leaders arming at once meet on the primary key, and
 * `on conflict do nothing` lets exactly one through.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 task, $3 watermark (timestamptz).
 *
 * Returns one row `(task)` when it armed the task; none when the task already had a watermark.
 */
export const SQL_SCHEDULER_ARM = `
insert into x_scheduler_state (task, watermark, updated_at)
values ($2::text, $3::timestamptz, coalesce($1::timestamptz, now()))
on conflict (task) do nothing
returning task
`;
