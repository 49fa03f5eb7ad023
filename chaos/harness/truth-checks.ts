/**
 * The readers of the ground truth: the driver's final state is copied beside it ({@link recordFinalState}), then each
 * invariant is one SQL count of violations over the two ({@link countViolations}).
 */
import type { Pool } from 'pg';
import type { JobDriver } from '@ultimat3/jobs';

const CREATE = `
create table if not exists chaos_final (
  run text not null, job_id text not null, state text not null, attempt int not null, worker text,
  primary key (run, job_id)
);
create table if not exists chaos_stored (
  run text not null, job_id text not null, step text not null, attempt int not null,
  primary key (run, job_id, step)
)`;

/** Options of {@link recordFinalState}. */
export interface FinalStateOptions {
  /** Reads in flight at once (default 200). */
  readonly parallel?: number;
  /**
   * The run's PostgreSQL schema, when it lives in the ground truth's database (a pg {@link ./drivers.createChaosRun}'s
   * does: its `target.schema`): the rows are then copied by two statements there instead of read one by one.
   */
  readonly schema?: string;
}

/** The final state copied by SQL from `schema`'s tables in the same database. */
async function copyFinalState(
  pool: Pool,
  run: string,
  schema: string,
  ids: readonly string[],
): Promise<void> {
  const q = `"${schema.replace(/"/g, '""')}"`;
  await pool.query(
    `insert into chaos_final (run, job_id, state, attempt, worker)
     select $1, i.id, coalesce(j.state, 'missing'), coalesce(j.attempt, 0), j.worker_id
       from unnest($2::text[]) as i(id) left join ${q}.x_jobs j on j.id = i.id::uuid`,
    [run, ids],
  );
  await pool.query(
    `insert into chaos_stored (run, job_id, step, attempt)
     select $1, s.job_id::text, s.name, s.attempt from ${q}.x_job_steps s where s.job_id = any($2::uuid[])`,
    [run, ids],
  );
}

/**
 * Reads every job of `ids` and its stored steps through `driver` (the driver-agnostic path: `get`, `steps.load`) and
 * writes them to `chaos_final` / `chaos_stored` under `run`. A job the driver no longer knows is state `missing`.
 */
export async function recordFinalState(
  pool: Pool,
  run: string,
  driver: JobDriver,
  ids: readonly string[],
  options: FinalStateOptions = {},
): Promise<void> {
  await pool.query(CREATE);
  if (options.schema !== undefined) return copyFinalState(pool, run, options.schema, ids);
  const parallel = options.parallel ?? 200;
  for (let from = 0; from < ids.length; from += parallel) {
    const chunk = ids.slice(from, from + parallel);
    const read = await Promise.all(
      chunk.map(async (id) => ({
        id,
        row: await driver.get(id),
        steps: await driver.steps.load(id),
      })),
    );
    await pool.query(
      `insert into chaos_final (run, job_id, state, attempt, worker)
       select $1, j, s, a, w from unnest($2::text[], $3::text[], $4::int[], $5::text[]) as t(j, s, a, w)`,
      [
        run,
        read.map((r) => r.id),
        read.map((r) => r.row?.state ?? 'missing'),
        read.map((r) => r.row?.attempt ?? 0),
        read.map((r) => r.row?.workerId ?? null),
      ],
    );
    const steps = read.flatMap((r) => r.steps.map((s) => ({ id: r.id, ...s })));
    if (steps.length === 0) continue;
    await pool.query(
      `insert into chaos_stored (run, job_id, step, attempt)
       select $1, j, s, a from unnest($2::text[], $3::text[], $4::int[]) as t(j, s, a)`,
      [run, steps.map((s) => s.id), steps.map((s) => s.name), steps.map((s) => s.attempt)],
    );
  }
}

/** Each invariant's violation count over one run (all zero where the guarantees hold). */
export interface TruthViolations {
  /** Jobs not `done` at the end (lost, dead, or still live). */
  readonly notDone: number;
  /** Done jobs missing a stored step the job declares, or whose stored step no body run produced. */
  readonly stepsLost: number;
  /** Jobs whose ack landed for two different claims: completed twice. */
  readonly completedTwice: number;
  /** Step bodies that ran in an attempt after the one whose result was stored: re-run after their step was stored. */
  readonly stepsRerunAfterStored: number;
  /**
   * Settles and step writes that landed although sent after a later claim of the job had been handed out: a stale
   * write accepted. (Sound: such a write's fence named a claim the row no longer held.) Claims are ordered by when
   * each was recorded (`sent_at`: taken as the claim came back, before the worker could let the row go), and a later
   * claim's hand-out is bounded by when its record was sent (`at`); a batch's send time does not order claims, since a
   * claim handed back at once can be re-claimed and recorded by another process before its own record is sent.
   */
  readonly staleWritesAccepted: number;
}

/** Figures beside the invariants. */
export interface TruthFigures {
  /** Settles and step writes the drivers refused (their claim had been taken over). */
  readonly staleWritesRefused: number;
  /** Lease renewals refused. */
  readonly heartbeatsRefused: number;
  /** Claims handed out, over every job. */
  readonly claims: number;
  /** Step bodies run, over every job (more than jobs × steps: re-runs of steps never stored). */
  readonly bodies: number;
}

const one = async (pool: Pool, sql: string, values: readonly unknown[]): Promise<number> => {
  const { rows } = await pool.query<{ n: number }>(sql, [...values]);
  return rows[0]?.n ?? 0;
};

/**
 * Counts every invariant's violations of `run`, after {@link recordFinalState}. `steps`: the step names every job
 * runs (a done job must have each stored).
 */
export async function countViolations(
  pool: Pool,
  run: string,
  steps: readonly string[],
): Promise<TruthViolations> {
  // fresh tables: without statistics the planner nests loops over whole scans
  await pool.query('analyze chaos_truth, chaos_final, chaos_stored');
  const notDone = await one(
    pool,
    `select count(*)::int as n from chaos_final where run = $1 and state <> 'done'`,
    [run],
  );
  const missing = await one(
    pool,
    `select count(*)::int as n from chaos_final f cross join unnest($2::text[]) as s(step)
      where f.run = $1 and f.state = 'done'
        and not exists (select 1 from chaos_stored t where t.run = f.run and t.job_id = f.job_id and t.step = s.step)`,
    [run, steps],
  );
  const unproduced = await one(
    pool,
    `select count(*)::int as n from chaos_stored t
      where t.run = $1 and not exists (select 1 from chaos_truth b where b.run = t.run and b.job_id = t.job_id
        and b.kind = 'body' and b.step = t.step and b.attempt = t.attempt)`,
    [run],
  );
  const completedTwice = await one(
    pool,
    `select count(*)::int as n from (select job_id from chaos_truth where run = $1 and kind = 'ack' and accepted
      group by job_id having count(distinct claim) > 1) twice`,
    [run],
  );
  const rerun = await one(
    pool,
    `select count(*)::int as n from chaos_truth b join chaos_stored t
        on t.run = b.run and t.job_id = b.job_id and t.step = b.step
      where b.run = $1 and b.kind = 'body' and b.attempt > t.attempt`,
    [run],
  );
  const stale = await one(
    pool,
    `select count(*)::int as n from chaos_truth w
      join chaos_truth mine on mine.run = w.run and mine.job_id = w.job_id and mine.kind = 'claim' and mine.claim = w.claim
      where w.run = $1 and w.kind in ('ack', 'nack', 'save') and w.accepted
        and exists (select 1 from chaos_truth later where later.run = w.run and later.job_id = w.job_id
          and later.kind = 'claim' and later.claim <> w.claim and later.sent_at > mine.sent_at and later.at < w.sent_at)`,
    [run],
  );
  return {
    notDone,
    stepsLost: missing + unproduced,
    completedTwice,
    stepsRerunAfterStored: rerun,
    staleWritesAccepted: stale,
  };
}

/** The figures of `run` beside its invariants. */
export async function countFigures(pool: Pool, run: string): Promise<TruthFigures> {
  const { rows } = await pool.query<TruthFigures>(
    `select count(*) filter (where kind in ('ack', 'nack', 'save') and accepted = false)::int as "staleWritesRefused",
            count(*) filter (where kind = 'heartbeat')::int as "heartbeatsRefused",
            count(*) filter (where kind = 'claim')::int as claims,
            count(*) filter (where kind = 'body')::int as bodies
       from chaos_truth where run = $1`,
    [run],
  );
  return rows[0]!;
}

/**
 * The ground truth of up to `limit` jobs a step body re-ran after their step was stored, each as its rows in time
 * order (`kind step attempt pid accepted +ms`), with the stored steps: what a red run prints to be read.
 */
export async function explainRerunSteps(pool: Pool, run: string, limit = 3): Promise<string[]> {
  const { rows: jobs } = await pool.query<{ job_id: string }>(
    `select distinct b.job_id from chaos_truth b join chaos_stored t
        on t.run = b.run and t.job_id = b.job_id and t.step = b.step
      where b.run = $1 and b.kind = 'body' and b.attempt > t.attempt limit $2`,
    [run, limit],
  );
  const out: string[] = [];
  for (const { job_id: jobId } of jobs) {
    const { rows } = await pool.query<{ line: string }>(
      `select concat_ws(' ', kind, step, attempt, pid, accepted, left(claim, 8),
              '+' || (sent_at - min(sent_at) over ()) || 'ms', 'at+' || (at - min(sent_at) over ()) || 'ms') as line
         from chaos_truth where run = $1 and job_id = $2 order by sent_at, seq`,
      [run, jobId],
    );
    const { rows: stored } = await pool.query<{ step: string; attempt: number }>(
      `select step, attempt from chaos_stored where run = $1 and job_id = $2 order by step`,
      [run, jobId],
    );
    out.push(
      `job ${jobId} (stored: ${stored.map((s) => `${s.step}@${s.attempt}`).join(' ')})\n    ${rows.map((r) => r.line).join('\n    ')}`,
    );
  }
  return out;
}
