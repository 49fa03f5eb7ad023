/**
 * A fleet of chaos worker processes and a steady enqueuer against one target, for scenarios that fault the server or
 * the network under them (3, 8): start it, inject the faults, then {@link FaultedFleet.settle} (every acknowledged job
 * done within a bound after the last fault) and {@link FaultedFleet.finish} (the verdict: every invariant's violation
 * count and the figures beside them, from the ground truth and the driver's final state).
 */
import type { Pool } from 'pg';
import type { EnqueueRequest, JobDriver } from '@ultimat3/jobs';
import { enqueueStream, type EnqueueStream } from './enqueue-stream';
import { ChaosFleet, type ChaosProcess } from './processes';
import { countFigures, countViolations, recordFinalState } from './truth-checks';
import type { ChaosWorkerConfig } from './worker-child';

/** How long {@link FaultedFleet.settle} waits for the enqueuer to have every job acknowledged. */
export const STREAM_BOUND_MS = 300_000;

/** Options of {@link startFaultedFleet}. */
export interface FaultedFleetOptions {
  /** The worker entry (a `serveChaosWorker` child). */
  readonly entry: string;
  /** Each worker's JSON config (its name is `w<i>`). */
  readonly config: (name: string) => ChaosWorkerConfig;
  readonly workers: number;
  /** The ground truth's pool (the spec file's database). */
  readonly truth: Pool;
  /** The spec's own driver, straight to the server: it enqueues and reads the final state. */
  readonly driver: JobDriver;
  /** Job `n`'s request (a fixed id per `n`). */
  readonly request: (n: number) => EnqueueRequest;
  readonly total: number;
  readonly batch?: number;
  readonly intervalMs?: number;
}

/** How a fleet came through its faults. */
export interface FleetVerdict {
  readonly invariants: Readonly<Record<string, number>>;
  readonly figures: Readonly<Record<string, number>>;
}

/** A started fleet. */
export interface FaultedFleet {
  readonly processes: readonly ChaosProcess[];
  readonly stream: EnqueueStream;
  /**
   * Waits for the stream to finish (at most {@link STREAM_BOUND_MS}), then for every acknowledged job to be done, at
   * most `boundMs` from the stream's end; answers how long the second wait took and how many were not done at the bound.
   */
  settle(boundMs: number): Promise<{ readonly ms: number; readonly pending: number }>;
  /**
   * Counts the workers that died on their own, asks the live ones their log events, drains them (SIGTERM), records
   * the final state of every acknowledged job and answers the verdict. `steps`: the step names every job stores.
   */
  finish(run: string, steps: readonly string[]): Promise<FleetVerdict>;
  /** SIGKILLs whatever still runs (an `afterAll` after a red run). */
  kill(): Promise<void>;
}

/** Starts the workers (each ready) and then the enqueuer. */
export async function startFaultedFleet(options: FaultedFleetOptions): Promise<FaultedFleet> {
  const fleet = new ChaosFleet();
  for (let i = 0; i < options.workers; i++) {
    const name = `w${i}`;
    fleet.add({ entry: options.entry, label: name, args: [JSON.stringify(options.config(name))] });
  }
  await fleet.startAll();
  const stream = enqueueStream({
    driver: options.driver,
    request: options.request,
    total: options.total,
    ...(options.batch === undefined ? {} : { batch: options.batch }),
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
  });

  return {
    processes: fleet.processes,
    stream,
    settle: (boundMs) => settleFleet(stream, options.driver, boundMs),
    async finish(run, steps) {
      const died = fleet.processes.filter((p) => !p.alive).length;
      const events = await logEvents(fleet.processes.filter((p) => p.alive));
      const codes = await Promise.all(fleet.processes.map((p) => p.shutdown()));
      const ids = stream.acknowledged.map((a) => a.id);
      await recordFinalState(options.truth, run, options.driver, ids);
      const v = await countViolations(options.truth, run, steps);
      const f = await countFigures(options.truth, run);
      const extra = await windowCounts(options.truth, run);
      return {
        invariants: {
          'acknowledged jobs lost (no row)': extra.missing,
          'jobs not done at the end': v.notDone - extra.missing,
          'steps lost': v.stepsLost,
          'jobs completed twice': v.completedTwice,
          'step bodies re-run after their step was stored': v.stepsRerunAfterStored,
          'stale writes accepted': v.staleWritesAccepted,
          'worker processes that exited on their own': died,
          'worker processes that did not drain cleanly (exit code not 0)': codes.filter(
            (c) => c !== 0,
          ).length,
        },
        figures: {
          'jobs acknowledged': ids.length,
          'enqueue batches failed (sent again)': stream.failedBatches,
          'step bodies re-run inside the at-least-once window (lease lapsed or write failed before the store)':
            extra.inWindow,
          'step bodies run': f.bodies,
          claims: f.claims,
          'stale writes refused': f.staleWritesRefused,
          'lease renewals refused': f.heartbeatsRefused,
          'claims that failed (jobs.claim.failed)': events['jobs.claim.failed'] ?? 0,
          'settles sent again (jobs.settle.retrying)': events['jobs.settle.retrying'] ?? 0,
        },
      };
    },
    kill: () => fleet.killAll(),
  };
}

/** The ids of `ids` whose job is not done (a failed read counts as not done). */
async function notDone(driver: JobDriver, ids: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (let from = 0; from < ids.length; from += 200) {
    const chunk = ids.slice(from, from + 200);
    const rows = await Promise.all(chunk.map((id) => driver.get(id).catch(() => null)));
    rows.forEach((row, i) => row?.state !== 'done' && out.push(chunk[i]!));
  }
  return out;
}

/** See {@link FaultedFleet.settle}. */
async function settleFleet(
  stream: EnqueueStream,
  driver: JobDriver,
  boundMs: number,
): Promise<{ ms: number; pending: number }> {
  // the stream sends what the faults made it send again first; the bound runs from its last acknowledgement
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    stream.done,
    new Promise((resolve) => (timer = setTimeout(resolve, STREAM_BOUND_MS))),
  ]);
  clearTimeout(timer);
  const started = Date.now();
  const deadline = started + boundMs;
  let pending = stream.acknowledged.map((a) => a.id);
  for (;;) {
    pending = await notDone(driver, pending);
    if (pending.length === 0 || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stream.stop();
  return { ms: Date.now() - started, pending: pending.length };
}

/** The log events the workers saw, by name, summed over `processes` (a worker that does not answer counts none). */
async function logEvents(processes: readonly ChaosProcess[]): Promise<Record<string, number>> {
  const events: Record<string, number> = {};
  for (const p of processes) {
    const reply = await p.request('stats').catch(() => undefined);
    for (const [name, n] of Object.entries((reply?.events ?? {}) as Record<string, number>))
      events[name] = (events[name] ?? 0) + n;
  }
  return events;
}

/** Acknowledged jobs with no row at the end, and step bodies re-run by an attempt before the one whose store landed. */
async function windowCounts(
  pool: Pool,
  run: string,
): Promise<{ missing: number; inWindow: number }> {
  const { rows } = await pool.query<{ missing: number; in_window: number }>(
    `select (select count(*)::int from chaos_final where run = $1 and state = 'missing') as missing,
            (select count(*)::int from chaos_truth b join chaos_stored t
                on t.run = b.run and t.job_id = b.job_id and t.step = b.step
              where b.run = $1 and b.kind = 'body' and b.attempt < t.attempt) as in_window`,
    [run],
  );
  return { missing: rows[0]?.missing ?? 0, inWindow: rows[0]?.in_window ?? 0 };
}

/**
 * How long after `at` (epoch ms: a fault's end) the first settle of `run` landed (ms), or -1 when none did: how quickly
 * the fleet resumed by itself.
 */
export async function firstSettleAfter(pool: Pool, run: string, at: number): Promise<number> {
  const { rows } = await pool.query<{ first: string | null }>(
    `select min(at)::text as first from chaos_truth where run = $1 and kind = 'ack' and accepted and sent_at >= $2`,
    [run, at],
  );
  const first = rows[0]?.first;
  return first === null || first === undefined ? -1 : Number(first) - at;
}

/** One fault's end: a short name and the instant it ended (epoch ms). */
export interface FaultEnd {
  readonly fault: string;
  readonly at: number;
}

/** For each fault, how long after its end the first settle landed ({@link firstSettleAfter}), as report figures. */
export async function resumeFigures(
  pool: Pool,
  run: string,
  ended: readonly FaultEnd[],
): Promise<Record<string, number>> {
  const figures: Record<string, number> = {};
  for (const [i, e] of ended.entries()) {
    figures[`ms from fault ${i + 1} (${e.fault}) ending to the first settle landed`] =
      await firstSettleAfter(pool, run, e.at);
  }
  return figures;
}
