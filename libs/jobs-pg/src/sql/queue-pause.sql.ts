/**
 * Pauses a queue: the claim skips it from its next pass on. Idempotent.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 queue. Returns nothing.
 */
export const SQL_QUEUE_PAUSE = `
insert into x_queue_pauses (queue, paused_at)
values ($2::text, coalesce($1::timestamptz, now()))
on conflict (queue) do nothing
`;
