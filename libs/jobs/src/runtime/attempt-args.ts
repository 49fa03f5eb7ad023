import type { AnyJobHandle } from '../declare/handle';
import type { JobRunContext, RunActor, RunArgs, StepApi } from '../declare/run-args';
import type { ClaimedJob, ClaimRef } from '../driver/job-row';
import type { AttemptEnv } from './attempt-options';
import { progressReporter, type ProgressReporter } from './progress';
import type { RunAbort } from './run-abort';
import type { RunScope } from './run-context';
import type { JobsLogger } from '../util/logger';
import { SuspensionLatch } from './step-suspension';
import { createStepApi } from './steps';

/**
 * The context a body runs under. A class rather than a literal with a getter: its `signal` is made on first read (see
 * {@link RunAbort}), and an object literal with an accessor costs a slow-path allocation per run.
 */
export class AttemptContext implements JobRunContext {
  readonly jobId: string;
  readonly runId: string;
  readonly name: string;
  readonly attempt: number;
  readonly #enqueuedBy: string | null;
  readonly #orgId: string | null;
  readonly #abort: RunAbort;
  #actor: RunActor | undefined;

  constructor(claimed: ClaimedJob, abort: RunAbort, orgId: string | null) {
    this.jobId = claimed.id;
    this.runId = claimed.runId;
    this.name = claimed.name;
    this.attempt = claimed.attempt;
    this.#enqueuedBy = claimed.enqueuedBy;
    this.#orgId = orgId;
    this.#abort = abort;
  }

  /** Who enqueued the run, under which tenant: made on first read, then the same object. */
  get actor(): RunActor {
    return (this.#actor ??= { id: this.#enqueuedBy, orgId: this.#orgId });
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get hardSignal(): AbortSignal {
    return this.#abort.hardSignal;
  }
}

/** What the arguments read from the attempt they belong to (the attempt itself: nothing is copied per run). */
export interface ArgsSource {
  readonly o: AttemptEnv;
  readonly claimed: ClaimedJob;
  readonly claim: ClaimRef;
  readonly final: boolean;
  readonly abort: RunAbort;
}

/**
 * What the body receives, and the run's ambient scope: one object per attempt, whose step API, progress reporter and
 * signal are made on first use — most bodies use none of them.
 */
export class AttemptArgs implements RunArgs<unknown>, RunScope {
  readonly jobId: string;
  readonly runId: string;
  readonly attempt: number;
  readonly finalAttempt: boolean;
  /** The suspension a sleep or wait of this attempt raised: the run parks on it whatever the body does after. */
  readonly suspension = new SuspensionLatch();
  readonly #a: ArgsSource;
  readonly #handle: AnyJobHandle;
  #step: StepApi | undefined;
  #reporter: ProgressReporter | undefined;
  #progress: RunArgs<unknown>['progress'] | undefined;

  constructor(
    a: ArgsSource,
    handle: AnyJobHandle,
    readonly input: unknown,
    readonly ctx: JobRunContext,
  ) {
    this.#a = a;
    this.#handle = handle;
    this.jobId = a.claimed.id;
    this.runId = a.claimed.runId;
    this.attempt = a.claimed.attempt;
    this.finalAttempt = a.final;
  }

  get signal(): AbortSignal {
    return this.#a.abort.signal;
  }

  /** The worker's logger: where a `crossTenant()` crossing inside the body is logged. */
  get logger(): JobsLogger {
    return this.#a.o.logger;
  }

  get step(): StepApi {
    if (this.#step === undefined) {
      const { o, claimed, claim } = this.#a;
      const { driver } = o;
      this.#step = createStepApi({
        driver,
        jobId: claimed.id,
        claim,
        attempt: claimed.attempt,
        clock: o.clock,
        events: o.events,
        signal: this.#a.abort.signal,
        hardSignal: this.#a.abort.hardSignal,
        stepTimeoutMs: this.#handle.stepTimeoutMs,
        eventPollMs: this.#handle.eventPollMs,
        tenant: this.ctx.actor.orgId,
        suspension: this.suspension,
        load: () => driver.steps.load(claimed.id),
      });
    }
    return this.#step;
  }

  /** A function, bound once it is asked for: a body may take it out of its arguments. */
  get progress(): RunArgs<unknown>['progress'] {
    return (this.#progress ??= (done, total, note) => {
      const { o, claimed, claim } = this.#a;
      this.#reporter ??= progressReporter(o.driver, claimed.id, claim, o.clock);
      this.#reporter.report(done, total, note);
    });
  }

  /** Writes the last reported progress if it was held back; undefined when the body reported none. */
  flushProgress(): Promise<void> | undefined {
    return this.#reporter?.flush();
  }
}
