/**
 * The single enqueue that may hand its row to an idle worker: `SQL_ENQUEUE_INSERT_PLAIN` (the same 15 parameters, the
 * same row, the same wake, the same unique-violation failure over a shared executor) whose row, when an idle worker
 * registered for its queue and name can take it (`x_job_hand_offs`, written by `SQL_HAND_OFF_REGISTER`), is inserted
 * already claimed for that worker — running, attempt 1, the worker's id, a fresh claim token, leased for the worker's
 * visibility timeout — and announced to it alone: `pg_notify` on its channel (`x_jobs_ho_` and the first 16 hex
 * digits of md5(worker id)) with the row as the claim answers it, as JSON, and `free_left`: the registration's free
 * slots after this hand-off (how the worker knows when to register again, whatever order its writes and these
 * notifications cross in). The notification is delivered when the
 * enqueue commits and never if it rolls back, so the worker starts the job one delivery after the commit instead of
 * hearing a wake and sending a claim.
 *
 * A registration is chosen only when the row would be the next its worker claims, and delivered whole:
 * - the row is due now ($10 at or before the statement's clock) and its queue is not paused;
 * - no waiting row of the same queue, name and priority is due already (a claim takes those first). Rows of other
 *   names or priorities are not looked for: that scan is bounded (one priority's due range of the claim index),
 *   theirs would cross every delayed row of the queue;
 * - the worker has a free slot there (each hand-off takes one) and serves the name;
 * - its LISTEN session is alive: it holds the advisory lock `(2020239471, hashtext(worker_id))` for as long as it is
 *   connected, so `pg_try_advisory_xact_lock_shared` fails on a live worker's key and succeeds on a dead one's (the
 *   shared lock then taken is let go at commit, and harms nothing);
 * - the notification fits PostgreSQL's 8,000-byte bound: the input's JSON text (embedded verbatim) and six times
 *   every other text (JSON's worst escape) within 7,000 bytes, with the fixed fields well under the rest.
 * The registration is locked `skip locked`: two enqueues never wait on each other for it, the second one just waits
 * in the queue. Nothing chosen: the row is inserted and announced exactly as `SQL_ENQUEUE_INSERT_PLAIN` does.
 *
 * A handed row announces its slot under the same throttle as any other — the wake's throttle reads every row of a slot
 * as proof the slot was announced (`SQL_ENQUEUE_INSERT`), so a handed row that stayed silent would silence its slot's
 * later rows too — but on `x_jobs_wake_sweep` (`WAKE_SWEEP_CHANNEL`), not `x_jobs_wake`: its own row is already its
 * worker's, so listeners claim nothing at once and sweep once, `WAKE_SWEEP_MS` later, for the rows of the slot that
 * skipped their announcement. On `x_jobs_wake` each listener would claim at once and again at the sweep: at 20 jobs/s
 * all handed, one worker sent 3.0 empty claims a job, 2.0 with this channel (`pickup-trace.mjs`). Its worker is told
 * first (`handed` is computed before `announced`, and a transaction's notifications arrive in the order they were
 * sent).
 *
 * Answers `(created_s, handed, registered, announced)`: whether the row was handed, whether any worker is registered
 * for its queue (handed or not: a registration locked by another enqueue or its worker, or with no slot free, still
 * counts — the driver keeps trying the hand-off for the queue while one is), and the wake's answer.
 */
export const SQL_ENQUEUE_HAND_OFF = `
with h as (
  update x_job_hand_offs r set free = r.free - 1
  where (r.queue, r.worker_id) = (
    select c.queue, c.worker_id
    from x_job_hand_offs c
    where c.queue = $5::text
      and c.free > 0
      and $4::text = any(c.names)
      and $10::timestamptz <= coalesce($1::timestamptz, now())
      and octet_length($6::text) + 6 * (octet_length($4::text) + octet_length($5::text) + octet_length($7::text)
        + coalesce(octet_length($8::text), 0) + coalesce(octet_length($9::text), 0)
        + coalesce(octet_length($13::text), 0) + coalesce(octet_length($14::text), 0)
        + coalesce(octet_length($15::text), 0) + octet_length(c.worker_id)) <= 7000
      and not exists (select 1 from x_queue_pauses p where p.queue = $5::text)
      and not exists (
        select 1 from x_jobs a
        where (a.queue, a.name, a.priority) = ($5::text, $4::text, $12::int)
          and a.state in ('ready', 'delayed', 'suspended')
          and a.run_at <= coalesce($1::timestamptz, now())
      )
      and not pg_try_advisory_xact_lock_shared(2020239471, hashtext(c.worker_id))
    limit 1
    for update skip locked
  )
  returning r.worker_id, r.vt_ms, r.free
)
insert into x_jobs as j (
  id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by, state, attempt,
  max_attempts, priority, run_at, created_at, updated_at, concurrency_key, traceparent,
  cross_tenant_reason, worker_id, claim, lease_expires_at
)
select
  $2::uuid, $3::uuid, $4::text, $5::text, $6::json, $7::text, $8::text, $9::text,
  case when h.worker_id is not null then 'running'
    when $10::timestamptz > coalesce($1::timestamptz, now()) then 'delayed' else 'ready' end,
  case when h.worker_id is not null then 1 else 0 end,
  $11::int, $12::int, $10::timestamptz, coalesce($1::timestamptz, now()), coalesce($1::timestamptz, now()),
  $13::text, $14::text, $15::text,
  h.worker_id,
  case when h.worker_id is not null then gen_random_uuid() end,
  coalesce($1::timestamptz, now()) + h.vt_ms * interval '1 millisecond'
from (select) o
left join h on true
returning extract(epoch from j.created_at) as created_s,
  j.worker_id is not null and pg_notify(
    'x_jobs_ho_' || left(md5(j.worker_id), 16),
    json_build_object(
      'id', j.id, 'run_id', j.run_id, 'name', j.name, 'queue', j.queue, 'input', j.input,
      'idempotency_key', j.idempotency_key, 'tenant_id', j.tenant_id, 'enqueued_by', j.enqueued_by,
      'state', j.state, 'attempt', j.attempt, 'max_attempts', j.max_attempts, 'priority', j.priority,
      'worker_id', j.worker_id, 'claim', j.claim, 'last_error', j.last_error, 'progress', j.progress,
      'concurrency_key', j.concurrency_key, 'traceparent', j.traceparent,
      'cross_tenant_reason', j.cross_tenant_reason,
      'run_at', floor(extract(epoch from j.run_at) * 1000)::int8,
      'created_at', floor(extract(epoch from j.created_at) * 1000)::int8,
      'updated_at', floor(extract(epoch from j.updated_at) * 1000)::int8,
      'lease_expires_at', floor(extract(epoch from j.lease_expires_at) * 1000)::int8,
      'finished_at', null,
      'free_left', (select h.free from h)
    )::text
  ) is not null as handed,
  exists (select 1 from x_job_hand_offs r where r.queue = j.queue) as registered,
  case when j.run_at <= j.created_at + interval '1 second' then (
    select case
      when exists (
        select 1 from x_jobs s
        where s.id >= w.lo and s.id < w.hi
          and s.queue = j.queue
          and s.run_at <= s.created_at + interval '1 second'
          and s.created_at >= w.starts and s.created_at < w.starts + interval '5 milliseconds'
      ) then false
      when pg_try_advisory_xact_lock(2020243307, hashtext(j.queue) # (w.n % 2147483647)::int)
        then pg_notify(
          case when j.worker_id is null then 'x_jobs_wake' else 'x_jobs_wake_sweep' end, j.queue
        ) is not null
      else false
    end
    from (
      select a.n, timestamptz 'epoch' + a.n * interval '5 milliseconds' as starts,
        (lpad(to_hex(a.n * 5), 12, '0') || '00000000000000000000')::uuid as lo,
        (lpad(to_hex(a.n * 5 + 5), 12, '0') || '00000000000000000000')::uuid as hi
      from (select floor(extract(epoch from j.created_at) * 1000 / 5)::bigint as n) a
      offset 0
    ) w
  ) else false end as announced
`;
