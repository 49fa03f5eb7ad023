/**
 * A worker's registration for the hand-off (`SQL_ENQUEUE_HAND_OFF`), sent on its LISTEN session — the session that
 * holds its advisory lock `(2020239471, hashtext(worker_id))`, so the rows written here count only while it lives.
 *
 * $1 worker id, $2 the offers as a JSON array of `{ "queue": text, "free": int, "names": [text] }` (free: the rows it
 * can start at once there; names: the job names it serves there), $3 the lease a row handed to it takes (ms).
 *
 * In one statement: every queue offered with a free slot is registered (a row written, or its free count, names and
 * lease replaced); the worker's registrations for queues not offered now stay as they are (a busy worker offers
 * nothing, and is handed back what it has no slot for — cheaper than a write each time it fills up); and the
 * registrations of the offered queues whose worker's session is gone (its lock free) are removed — a killed worker's
 * rows are never chosen, and go at the next registration of their queue. `SQL_HAND_OFF_LEAVE` removes them all.
 */
export const SQL_HAND_OFF_REGISTER = `
with offers as (
  select o.queue, o.free, o.names
  from json_to_recordset($2::json) as o(queue text, free int, names text[])
  where o.free > 0
), dead as (
  delete from x_job_hand_offs h
  where h.queue in (select queue from offers) and h.worker_id <> $1::text
    and pg_try_advisory_xact_lock_shared(2020239471, hashtext(h.worker_id))
)
insert into x_job_hand_offs as h (queue, worker_id, free, names, vt_ms, registered_at)
select o.queue, $1::text, o.free, o.names, $3::float8, now() from offers o
on conflict (queue, worker_id) do update set
  free = excluded.free, names = excluded.names, vt_ms = excluded.vt_ms, registered_at = excluded.registered_at
`;
