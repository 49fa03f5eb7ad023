/**
 * The ground truth: what the job bodies and the workers of a chaos run did, written to PostgreSQL as it happens —
 * also when the jobs run on Redis — one row per step body execution, side effect, claim and fenced write, with the
 * job id, step, attempt and the writing process's pid. The spec counts invariant violations from it
 * ({@link ./truth-checks}) and from the driver's final state.
 */
import type { Pool } from 'pg';

/** What a ground-truth row records. */
export type TruthKind =
  /** A step body ran (written inside the body, before it returns, so before its step can be stored). */
  | 'body'
  /** A side effect outside any step (named in `step`). */
  | 'effect'
  /** A claim handed the job to a worker (`claim` is its token). */
  | 'claim'
  /** An ack (settle done) answered; `accepted` says whether it landed. */
  | 'ack'
  /** A nack (any other settle, its kind in `step`) answered. */
  | 'nack'
  /** A step write answered (the step in `step`). */
  | 'save'
  /** A lease renewal the driver refused (only refusals are recorded). */
  | 'heartbeat';

/** One ground-truth row as a writer records it. */
export interface TruthEntry {
  readonly kind: TruthKind;
  readonly jobId: string;
  readonly attempt: number;
  readonly step?: string | null;
  /** The claim token the write was fenced on, or the claim's own token. */
  readonly claim?: string | null;
  /** Writes: whether the driver answered that it landed. */
  readonly accepted?: boolean | null;
  /** Epoch ms the body started or the write was sent (default: when recorded). */
  readonly sentAt?: number;
}

/** The table every run of a spec file's database writes to, told apart by `run`. */
export const TRUTH_TABLE = 'chaos_truth';

const CREATE = `
create table if not exists chaos_truth (
  seq bigserial primary key,
  run text not null,
  job_id text not null,
  kind text not null,
  step text,
  attempt int not null,
  claim text,
  pid int not null,
  accepted boolean,
  sent_at bigint not null,
  at bigint not null
);
create index if not exists chaos_truth_run_job on chaos_truth (run, job_id, kind)`;

/** Creates the ground-truth table in the pool's database (idempotent). */
export async function createGroundTruth(pool: Pool): Promise<void> {
  await pool.query(CREATE);
}

const INSERT = `
insert into chaos_truth (run, job_id, kind, step, attempt, claim, pid, accepted, sent_at, at)
select $1, j, k, s, a, c, $2, acc, st, $3
  from unnest($4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::boolean[], $10::bigint[])
    as t(j, k, s, a, c, acc, st)`;

/** A writer of one run's ground truth. */
export interface TruthWriter {
  /** Records `entry`; resolves once it is committed (batched with the entries recorded around it). */
  record(entry: TruthEntry): Promise<void>;
  /** Resolves once every entry recorded so far is committed. */
  flush(): Promise<void>;
}

interface Pending {
  readonly entry: TruthEntry;
  readonly at: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Options of {@link truthWriter}. */
export interface TruthWriterOptions {
  /** The pool over the ground truth's database (the writer does not end it). */
  readonly pool: Pool;
  /** The run's key ({@link ./drivers.ChaosRun.id}). */
  readonly run: string;
  /** The pid recorded on every row (default this process's). */
  readonly pid?: number;
  /** Rows per INSERT (default 1,000). */
  readonly batch?: number;
  /** INSERTs in flight at once (default 4). */
  readonly parallel?: number;
  /** How long a failing INSERT is sent again before its entries reject (default 60 s: a server restart's window). */
  readonly retryForMs?: number;
}

/**
 * A group-commit writer: entries recorded in the same turn go out as one INSERT (up to `batch` rows), each caller
 * awaiting its own row's commit — so a body that awaits `record()` before returning has its row durable before its
 * step can be stored, at a few statements per thousand rows. A failing INSERT is retried for `retryForMs`.
 */
export function truthWriter(options: TruthWriterOptions): TruthWriter {
  const { pool, run } = options;
  const pid = options.pid ?? process.pid;
  const batch = options.batch ?? 1_000;
  const parallel = options.parallel ?? 4;
  const retryForMs = options.retryForMs ?? 60_000;
  const queue: Pending[] = [];
  let inFlight = 0;
  let scheduled = false;
  const idle: (() => void)[] = [];

  const send = async (items: readonly Pending[]): Promise<void> => {
    const cols = {
      j: [] as string[],
      k: [] as string[],
      s: [] as (string | null)[],
      a: [] as number[],
      c: [] as (string | null)[],
      acc: [] as (boolean | null)[],
      st: [] as number[],
    };
    for (const { entry, at } of items) {
      cols.j.push(entry.jobId);
      cols.k.push(entry.kind);
      cols.s.push(entry.step ?? null);
      cols.a.push(entry.attempt);
      cols.c.push(entry.claim ?? null);
      cols.acc.push(entry.accepted ?? null);
      cols.st.push(entry.sentAt ?? at);
    }
    const values = [
      run,
      pid,
      Date.now(),
      cols.j,
      cols.k,
      cols.s,
      cols.a,
      cols.c,
      cols.acc,
      cols.st,
    ];
    const deadline = Date.now() + retryForMs;
    for (;;) {
      try {
        await pool.query(INSERT, values);
        return;
      } catch (error) {
        if (Date.now() >= deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };

  const pump = (): void => {
    scheduled = false;
    while (queue.length > 0 && inFlight < parallel) {
      const items = queue.splice(0, batch);
      inFlight++;
      send(items)
        .then(
          () => {
            for (const item of items) item.resolve();
          },
          (error: unknown) => {
            for (const item of items) item.reject(error);
          },
        )
        .finally(() => {
          inFlight--;
          if (queue.length > 0) pump();
          else if (inFlight === 0) for (const done of idle.splice(0)) done();
        });
    }
  };

  return {
    record(entry) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ entry, at: Date.now(), resolve, reject });
        if (!scheduled && inFlight < parallel) {
          scheduled = true;
          setImmediate(pump);
        }
      });
    },
    flush() {
      if (queue.length === 0 && inFlight === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idle.push(resolve));
    },
  };
}
