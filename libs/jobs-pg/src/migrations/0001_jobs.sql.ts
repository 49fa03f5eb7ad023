/**
 * Migration 0001: every table the queue, its operator surface and the roles around it use, so later features add
 * statements, not DDL. Applied once, recorded in `x_migrations`; never edited after release — a change is a new
 * numbered file.
 */
export const MIGRATION_0001_JOBS = `
-- One row per job. Finished rows (done, failed, dead, cancelled) stay until a retention sweep removes them; every
-- hot statement reaches rows through an index over LIVE states only, so they never slow a claim down.
create table x_jobs (
  id uuid primary key,                    -- UUIDv7 minted by the enqueuer: known before the write lands
  run_id uuid not null,
  name text not null,                     -- the job's durable name
  queue text not null,
  input jsonb not null,
  idempotency_key text not null,
  tenant_id text,                         -- null: the job belongs to no tenant
  enqueued_by text,
  state text not null,
  attempt integer not null default 0,
  max_attempts integer not null,
  priority integer not null default 0,    -- lower claims first
  run_at timestamptz not null,            -- due time
  created_at timestamptz not null,
  updated_at timestamptz not null,
  worker_id text,                         -- while running: the worker holding the claim
  claim uuid,                             -- while running: the token fencing every write of this attempt
  lease_expires_at timestamptz,           -- while running: when another claim may re-take the row
  last_error text,
  progress jsonb,                         -- { done, total, note? }
  concurrency_key text,
  traceparent text,
  finished_at timestamptz,
  constraint x_jobs_state_check
    check (state in ('ready', 'delayed', 'running', 'suspended', 'done', 'failed', 'dead', 'cancelled')),
  -- a running row carries its worker, claim and lease, and no other row does
  constraint x_jobs_claim_check
    check ((state = 'running') = (worker_id is not null and claim is not null and lease_expires_at is not null))
);

-- One live run per (name, tenant, idempotency key): what SQL_ENQUEUE's "on conflict do nothing" dedupes on.
create unique index x_jobs_name_tenant_idempotency_live_idx
  on x_jobs (name, coalesce(tenant_id, ''), idempotency_key)
  where state in ('ready', 'delayed', 'running', 'suspended');

-- The claim's ordered range scan: waiting rows of one queue by priority, run time, id. Running and finished rows
-- are out of it, so a claim never steps over them.
create index x_jobs_claim_idx
  on x_jobs (queue, priority, run_at, id)
  where state in ('ready', 'delayed', 'suspended');

-- Lapsed leases (a worker died): the claim's re-take and bury arms range over this.
create index x_jobs_lease_idx on x_jobs (lease_expires_at) where state = 'running';

-- The dead-letter queue per queue (inspectDeadLetters, queue_dead_jobs): small, since most rows end done.
create index x_jobs_dead_idx on x_jobs (queue, id) where state in ('dead', 'failed');

-- A queue table is rewritten all day: every claim and settle leaves a dead tuple. The defaults (vacuum at 20 % of
-- the table dead) let a table of a million finished rows carry 200,000 dead ones before a vacuum, and the claim index
-- skips them one by one. Vacuum at 1 % instead, analyse at 2 %, and let the vacuum work faster. A DBA may retune.
alter table x_jobs set (
  autovacuum_vacuum_scale_factor = 0.01,
  autovacuum_vacuum_insert_scale_factor = 0.01,
  autovacuum_analyze_scale_factor = 0.02,
  autovacuum_vacuum_cost_limit = 2000
);

-- Durable steps: a completed step's output, keyed by its name within the job.
create table x_job_steps (
  job_id uuid not null references x_jobs (id) on delete cascade,
  name text not null,
  seq bigint generated always as identity, -- completion order; requeue --from-step drops seq >= that step's
  output jsonb,                            -- SQL null: the step returned nothing; 'null'::jsonb: it returned null
  attempt integer not null,
  started_at timestamptz not null,
  completed_at timestamptz not null,
  primary key (job_id, name)
);

-- Fleet concurrency: one row per held slot of a key (job:<name>, job-key:<name>:<key>). A slot whose expires_at
-- passed is free; the next acquire overwrites it, so a SIGKILLed holder needs no cleanup.
create table x_job_leases (
  key text not null,
  slot integer not null check (slot >= 0),
  holder text not null,
  expires_at timestamptz not null,
  acquired_at timestamptz not null,
  primary key (key, slot)
);
create index x_job_leases_expires_idx on x_job_leases (expires_at);

-- The event bus behind step.waitForEvent: stamped with the database clock, matchable until expires_at.
create table x_job_events (
  id uuid primary key,
  name text not null,
  payload jsonb not null,
  published_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index x_job_events_name_idx on x_job_events (name, published_at, id);
create index x_job_events_expires_idx on x_job_events (expires_at);

-- The transactional outbox: a request staged in the caller's transaction, published by a relay after commit under
-- its own id (the row id IS the job id). published_at stays as the audit trail.
create table x_outbox (
  id uuid primary key,
  run_id uuid not null,
  name text not null,
  queue text not null,
  request jsonb not null,                 -- the EnqueueRequest as staged
  staged_at timestamptz not null default now(),
  claimed_by text,                        -- the relay holding the row; every mutation is fenced on it
  claimed_at timestamptz,                 -- the claim's lease starts here
  published_at timestamptz,
  attempts integer not null default 0,
  last_error text
);
-- relays claim unpublished rows in (staged_at, id) order: total, so two relays compose the same batch
create index x_outbox_pending_idx on x_outbox (staged_at, id) where published_at is null;

-- The backfill ledger: one row per pass, adopted by the retries of its own run.
create table x_backfills (
  id uuid primary key,
  name text not null,
  checksum text not null,
  status text not null check (status in ('running', 'completed', 'failed')),
  app_version text,
  job_id uuid,
  run_id uuid,
  rows_processed bigint not null default 0,
  batches bigint not null default 0,
  last_cursor jsonb,
  last_error text,
  started_at timestamptz not null,
  updated_at timestamptz not null,
  completed_at timestamptz
);
create index x_backfills_name_idx on x_backfills (name, started_at desc);
create unique index x_backfills_job_idx on x_backfills (job_id) where job_id is not null;

-- Scheduler watermarks, one row per task: the occurrence dealt with (fired or skipped), and the last one that fired.
create table x_scheduler_state (
  task text primary key,
  watermark timestamptz not null,
  last_fired_occurrence timestamptz,
  last_fired_at timestamptz,
  updated_at timestamptz not null
);

-- The scheduler's leader lease: a row with an expiry, renewed "where holder = me" (no session lock: a pooler would
-- hand it to every node).
create table x_scheduler_leader (
  name text primary key,
  holder text not null,
  expires_at timestamptz not null,
  acquired_at timestamptz not null,
  renewed_at timestamptz not null
);

-- Live workers for the operator surface; a row expires one visibility timeout after its last heartbeat.
create table x_workers (
  id text primary key,
  host text not null,
  pid integer,
  queues text[] not null default '{}',
  slots jsonb not null default '{}',      -- { queue: concurrency }
  in_flight uuid[] not null default '{}', -- at most MAX_WORKER_IN_FLIGHT ids
  started_at timestamptz not null,
  heartbeat_at timestamptz not null,
  expires_at timestamptz not null
);
create index x_workers_expires_idx on x_workers (expires_at);

-- Per-job history in tiered buckets (1 min for 24 h, 5 min for 7 d, 1 h for 30 d), moved by the settling statement.
create table x_job_counters (
  name text not null,
  bucket_ms integer not null,
  bucket_start timestamptz not null,
  done bigint not null default 0,
  retried bigint not null default 0,
  failed bigint not null default 0,
  dead bigint not null default 0,
  duration_ms bigint not null default 0,
  primary key (name, bucket_ms, bucket_start)
);

-- Pauses are rows the claim and the scheduler read, never a column on every queued row.
create table x_queue_pauses (
  queue text primary key,
  paused_at timestamptz not null,
  paused_by text
);
create table x_task_pauses (
  task text primary key,
  paused_at timestamptz not null,
  paused_by text
);
`;
