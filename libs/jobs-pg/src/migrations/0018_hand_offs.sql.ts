/**
 * Migration 0018: `x_job_hand_offs`, the idle workers an enqueue may hand a fresh row to (see `SQL_ENQUEUE_HAND_OFF`).
 *
 * One row per (queue, idle worker): how many rows it can start at once there (`free`), the job names it serves there
 * (`names`), and the lease a row handed to it takes (`vt_ms`). A worker writes its rows from its LISTEN session
 * (`SQL_HAND_OFF_REGISTER`) while that session holds the advisory lock `(2020239471, hashtext(worker_id))`; an enqueue
 * hands a row only to a worker whose lock is held, so a registration lives exactly as long as its worker's session —
 * a killed worker's stops being chosen the moment its connection closes, with no expiry to wait out and no renewal
 * to pay for while idle.
 *
 * Unlogged: a registration is a fact about live sessions, which a server restart ends anyway (an unlogged table is
 * emptied by crash recovery), so its writes skip the WAL. A replica holds none of it, and needs none.
 */
export const MIGRATION_0018_HAND_OFFS = `
create unlogged table if not exists x_job_hand_offs (
  queue text not null,
  worker_id text not null,
  free integer not null check (free >= 0),
  names text[] not null,
  vt_ms double precision not null check (vt_ms > 0),
  registered_at timestamptz not null default now(),
  primary key (queue, worker_id)
);
`;
