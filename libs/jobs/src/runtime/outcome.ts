import type { JobsTotalOutcome } from './metrics';

/**
 * How one attempt ended. `deferred` is a claim a cap handed straight back before the body started (uncounted, due
 * again after a poll). `lost` is an attempt whose settle did not land (its lease lapsed and the row moved on, or it
 * was cancelled): the claim that holds the row now decides.
 */
export type JobOutcome =
  | 'completed'
  | 'suspended'
  | 'retried'
  | 'dead-lettered'
  | 'dropped'
  | 'interrupted'
  | 'refused'
  | 'deferred'
  | 'lost';

/** Why a job stopped for good. */
export type StopReason = 'terminal' | 'attempts-exhausted';

/** The `jobs_total` outcome label an attempt counts under, or undefined for those that add nothing. */
export function jobsTotalOutcome(outcome: JobOutcome): JobsTotalOutcome | undefined {
  switch (outcome) {
    case 'completed':
      return 'ok';
    case 'retried':
    case 'dropped':
    case 'refused':
      return 'failed';
    case 'dead-lettered':
      return 'dead';
    default:
      return undefined;
  }
}

/** What one attempt came to. */
export interface JobExecution {
  /** The job the attempt ran. */
  readonly jobId: string;
  /** How the attempt ended. */
  readonly outcome: JobOutcome;
  /** What the body returned (completed runs only): the value itself, never serialised. */
  readonly result?: unknown;
  /** What the body threw, for failed attempts. */
  readonly error?: unknown;
  /** Why the job stopped for good, when it did. */
  readonly stopReason?: StopReason;
  /** When the row is due again (retried and suspended runs). */
  readonly resumeAt?: number;
  /** How long the attempt took, in ms. */
  readonly durationMs: number;
}
