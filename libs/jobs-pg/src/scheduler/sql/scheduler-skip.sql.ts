/**
 * Moves a task's watermark without firing (occurrences that will not fire are passed), compare-and-set: only from
 * the watermark the move was planned from. A concurrent move of the same task waits on the row lock, re-reads the
 * row and moves nothing. The last fire stays as it was.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 task, $3 the watermark to move to (timestamptz),
 * $4 the watermark planned from (timestamptz).
 *
 * Returns nothing; rowCount 1 when it moved, 0 when the stored watermark was another (or the task is not armed).
 */
export const SQL_SCHEDULER_SKIP = `
update x_scheduler_state s
set watermark = $3::timestamptz, updated_at = coalesce($1::timestamptz, now())
where s.task = $2::text and s.watermark = $4::timestamptz
`;
