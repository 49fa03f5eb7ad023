import type { Duration } from '../util/duration';
import type { ParseResult } from '../schema/standard';

/** The actor a run acts as: the declared tenant on `orgId`, the enqueuer on `id` (attribution, never authority). */
export interface RunActor {
  /** The id of the actor that enqueued the job (`handle.as(actor, …)`), or null. */
  readonly id: string | null;
  /** The tenant the job declared for this input, or null for `tenant: 'none'`. */
  readonly orgId: string | null;
}

/** What a run executes under: its actor, its cancellation signal and its identity. */
export interface JobRunContext {
  /** Who the run acts for: the enqueuer and the declared tenant. */
  readonly actor: RunActor;
  /**
   * Aborted by the first stop: the deadline, a lost lease, a cancel, or the worker's drain (`X_DRAINING`). A signal
   * aborts once, so after a drain it says nothing more — see `hardSignal`.
   */
  readonly signal: AbortSignal;
  /**
   * Aborted when the run's result will no longer be taken — the deadline, a lost lease or fleet slot, a cancel — and
   * never by a drain, even when one came first. Bind to it what a drain should let finish but a lost lease must tear
   * down at once: a request already on the wire whose answer is recorded (a second delivery would follow it).
   */
  readonly hardSignal: AbortSignal;
  /** The job id. */
  readonly jobId: string;
  /** The run id. */
  readonly runId: string;
  /** The job's durable name. */
  readonly name: string;
  /** The current attempt, 1-based. */
  readonly attempt: number;
}

/** Options of `step.waitForEvent`. */
export interface WaitForEventOptions<P> {
  /** Only an event whose payload this answers true for resumes the wait. */
  readonly match?: (payload: P) => boolean;
  /**
   * How long to wait; past it the step fails the attempt with `X_JOB_TIMEOUT`. The verdict is stored: a body that
   * catches it gets the same `X_JOB_TIMEOUT` from this step on every replay, even once a matching event is published.
   */
  readonly timeout?: Duration;
}

/** Durable steps. A step's name is its replay key: deterministic and unique in one run. */
export interface StepApi {
  /**
   * Runs `fn` once ever for this job: its JSON result is stored before the next step starts, and a replay answers the
   * stored value without calling `fn`. A value that is not JSON fails the step with `X_STEP_OUTPUT_INVALID`.
   */
  run<T>(name: string, fn: (signal: AbortSignal) => T | Promise<T>): Promise<T>;
  /** Suspends the run until `duration` has passed; no process is held and no attempt is burned. */
  sleep(name: string, duration: Duration): Promise<void>;
  /** The same, with the step name derived from the duration. */
  sleep(duration: Duration): Promise<void>;
  /** Suspends until a `publishEvent(event, payload)` that `match`es; answers its payload. */
  waitForEvent<P = unknown>(
    name: string,
    event: string,
    options?: WaitForEventOptions<P>,
  ): Promise<P>;
}

/** What a job body receives, for a parsed input type `I`. */
export interface RunArgs<I> {
  /** The input, parsed by the declared schema. */
  readonly input: I;
  /** Durable steps: `step.run`, `step.sleep`, `step.waitForEvent`. */
  readonly step: StepApi;
  /** The run's actor, signals and identity. */
  readonly ctx: JobRunContext;
  /** The same as `ctx.signal`. */
  readonly signal: AbortSignal;
  /** The current attempt, 1-based. */
  readonly attempt: number;
  /** True when a failure of this attempt is not retried for want of attempts. */
  readonly finalAttempt: boolean;
  /** The job id. */
  readonly jobId: string;
  /** The run id. */
  readonly runId: string;
  /**
   * Reports how far the run has got; written at most once a second, plus the last before the settle. `done` and
   * `total` are whole numbers from 0 to 2^53 − 1: anything else (NaN, Infinity, −1, 1.5) throws `X_VALUE_INVALID`
   * naming `progress.done` or `progress.total`.
   */
  readonly progress: (done: number, total: number, note?: string) => void;
}

/** How a run ended, as `onSettled` is told. */
export type JobSettled<I, R> =
  | {
      readonly outcome: 'completed';
      readonly jobId: string;
      readonly runId: string;
      readonly input: I;
      readonly result: R;
      readonly ctx: JobRunContext;
    }
  | {
      readonly outcome: 'dead-lettered' | 'dropped' | 'refused';
      readonly jobId: string;
      readonly runId: string;
      /** Undefined when the stored payload no longer parses. */
      readonly input: I | undefined;
      readonly error: string;
      readonly code: string | undefined;
      readonly ctx: JobRunContext;
    };

/**
 * What a job body receives. Takes the handle (`JobRunArgs<typeof onboardOrg>`, for a `@Job` method) or the parsed
 * input type itself.
 */
export type JobRunArgs<T> = T extends {
  readonly kind: 'job';
  parseInput(raw: unknown): Promise<ParseResult<infer O>>;
}
  ? RunArgs<O>
  : RunArgs<T>;
