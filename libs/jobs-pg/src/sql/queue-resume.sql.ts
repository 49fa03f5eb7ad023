/**
 * Resumes a queue; a no-op when it was not paused. $1 queue.
 *
 * Returns one row per pause removed (0 or 1) after announcing the queue on `x_jobs_wake`, so idle workers claim its
 * rows now rather than on their next poll.
 */
export const SQL_QUEUE_RESUME = `
with resumed as (
  delete from x_queue_pauses p where p.queue = $1::text
  returning p.queue
)
select pg_notify('x_jobs_wake', r.queue) from resumed r
`;
