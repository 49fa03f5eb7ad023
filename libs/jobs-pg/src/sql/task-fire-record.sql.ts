/**
 * Records the last fire of a task that went through `driver.enqueue` (`recordTaskFire`: a scheduler state that keeps
 * its watermarks elsewhere); the PostgreSQL scheduler state records its own fires in `SQL_SCHEDULER_FIRE` instead.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 task, $3 the occurrence that fired (timestamptz).
 *
 * Returns nothing. A task with no row gets one whose watermark is that occurrence (the watermark is the last
 * occurrence dealt with, and this one was); an existing row keeps its watermark and only its last fire moves.
 */
export const SQL_TASK_FIRE_RECORD = `
insert into x_scheduler_state as s (task, watermark, last_fired_occurrence, last_fired_at, updated_at)
select $2::text, $3::timestamptz, $3::timestamptz, k.now, k.now
from (select coalesce($1::timestamptz, now()) as now) k
on conflict (task) do update set
  last_fired_occurrence = excluded.last_fired_occurrence,
  last_fired_at = excluded.last_fired_at,
  updated_at = excluded.updated_at
`;
