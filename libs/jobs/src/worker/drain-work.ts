import type { Clock } from '../util/clock';
import type { JobsLogger } from '../util/logger';
import { settleWithin } from './settle-within';

/** A run the drain waits for. */
export interface DrainedRun {
  /** The run's end; undefined only while it is being started. */
  readonly done: Promise<void> | undefined;
  /** Stops renewing the run's lease. */
  readonly beat: { stop(): void };
}

/** What a stopping worker still has under way. Each entry leaves its collection when it settles. */
export interface DrainWork {
  readonly passes: ReadonlySet<Promise<void>>;
  readonly handingBack: ReadonlySet<Promise<void>>;
  /** The runs under way: their ids (`keys`) and themselves (`values`). */
  readonly runs: {
    readonly size: number;
    keys(): Iterable<string>;
    values(): Iterable<DrainedRun>;
  };
}

/**
 * Until nothing is under way: a claim on the wire may start runs or hand rows back after the wait began, so the
 * collections are read again after each round.
 */
async function quiet(work: DrainWork): Promise<void> {
  while (work.passes.size > 0 || work.handingBack.size > 0 || work.runs.size > 0) {
    const all: (Promise<void> | undefined)[] = [...work.passes, ...work.handingBack];
    for (const run of work.runs.values()) all.push(run.done);
    await Promise.all(all);
  }
}

/**
 * Waits for a stopping worker's claims on the wire, hand-backs and runs — until `deadlineAt` (the worker's clock) if
 * given. Past it, the runs still going are abandoned: logged `jobs.worker.drain-abandoned`, and their leases no longer
 * renewed.
 */
export async function drainWork(
  work: DrainWork,
  deadlineAt: number | undefined,
  clock: Clock,
  logger: JobsLogger,
  workerId: string,
): Promise<void> {
  const settled = await settleWithin(quiet(work), deadlineAt, clock);
  if (settled || work.runs.size === 0) return;
  logger.log('error', 'jobs.worker.drain-abandoned', { workerId, jobIds: [...work.runs.keys()] });
  // A stopped worker renews nothing: the abandoned runs' leases lapse so the queue delivers them again, which is
  // what at-least-once promises. Renewed on, a job would stay running under a worker that is gone.
  for (const run of work.runs.values()) run.beat.stop();
}
