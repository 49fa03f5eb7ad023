import { claimOf, type ClaimedJob, type ClaimRef, type JobState } from './job-row';

/** What every nack carries, whatever its kind: the claim it is fenced on, the error text and the run's duration. */
export interface NackBase extends ClaimRef {
  /** The error text to record (NUL characters are stripped at the write); null clears it. */
  readonly error: string | null;
  /** How long the attempt ran, in ms: added to the job's counters when the attempt counts (default 0). */
  readonly durationMs?: number;
}

/** A failed attempt, counted, due again at `runAt` (default now): `delayed` while it is ahead, else `ready`. */
export interface RetryNack extends NackBase {
  /** Try again: the attempt counts. */
  readonly kind: 'retry';
  /** When the row is due again (epoch ms; default now). */
  readonly runAt?: number;
}

/**
 * A run given back without its attempt counting (a drain, a held row let go, a cap's refusal to start it): due again
 * at `runAt` (default now), and the next claim presents the same attempt number.
 */
export interface HandBackNack extends NackBase {
  /** Give the run back: the attempt does not count. */
  readonly kind: 'handBack';
  /** When the row is due again (epoch ms; default now). */
  readonly runAt?: number;
}

/**
 * The hand-back of a row claimed and never started (held too long, let go by a drain, handed to a worker that could not
 * take it): uncounted, its run time kept (so its place in the claim order) and its last error kept.
 */
export function unstartedHandBack(row: ClaimedJob): HandBackNack {
  return { ...claimOf(row), kind: 'handBack', error: row.lastError, runAt: row.runAt };
}

/** A suspension (a step.sleep, a waitForEvent): `suspended` until `runAt`, the attempt handed back uncounted. */
export interface ParkNack extends NackBase {
  /** Suspend the run until `runAt`. */
  readonly kind: 'park';
  /** When the suspension ends and the row is due again (epoch ms). */
  readonly runAt: number;
}

/** A run stopped for good into the dead-letter queue: `dead` (kept, requeueable). The attempt counts. */
export interface DeadNack extends NackBase {
  /** Bury the run in the dead-letter queue. */
  readonly kind: 'dead';
}

/** A run stopped for good outside the dead-letter queue: `failed`. */
export interface FailNack extends NackBase {
  /** End the run `failed`. */
  readonly kind: 'fail';
  /** The body never ran (a `whenBusy: 'fail'` refusal): the claim's attempt is handed back. Default false. */
  readonly uncounted?: boolean;
}

/** How a nack moves the row: one kind, with only the fields that kind needs. See {@link nackState}. */
export type NackOptions = RetryNack | HandBackNack | ParkNack | DeadNack | FailNack;

/** The kinds of {@link NackOptions}. */
export type NackKind = NackOptions['kind'];

/** The state a nack moves a row to. Every driver reads it from here, so a new kind cannot land in one only. */
export function nackState(options: NackOptions, nowMs: number): JobState {
  switch (options.kind) {
    case 'dead':
      return 'dead';
    case 'fail':
      return 'failed';
    case 'park':
      return 'suspended';
    default:
      return (options.runAt ?? nowMs) > nowMs ? 'delayed' : 'ready';
  }
}

/** The run time a nack stores, or undefined for "now" (`dead` and `fail` keep none of their own). */
export function nackRunAt(options: NackOptions): number | undefined {
  return options.kind === 'dead' || options.kind === 'fail' ? undefined : options.runAt;
}

/**
 * Whether a nack hands its attempt back (attempt - 1, so the next claim presents the same number): a hand-back, a
 * park, and a fail whose body never ran. Such a nack adds nothing to the `retried` counter.
 */
export function nackUncounted(options: NackOptions): boolean {
  switch (options.kind) {
    case 'handBack':
    case 'park':
      return true;
    case 'fail':
      return options.uncounted === true;
    default:
      return false;
  }
}
