import type { AnyJobHandle } from '../declare/handle';
import { JobInputInvalidError } from '../errors/declaration-errors';
import {
  JobDrainedError,
  JobTimeoutError,
  JobUnboundError,
  JobUnknownError,
  LeaseLostError,
} from '../errors/runtime-errors';
import type { ClaimedJob } from '../driver/job-row';
import type { JobBody, RegisteredJob } from '../registry/job-registry';
import type { ParseResult } from '../schema/standard';
import { traceRun, tracingOn } from '../tracing/run-span';
import { watchAbandoned } from './abandoned-body';
import { AttemptArgs, AttemptContext } from './attempt-args';
import type { AttemptEnv } from './attempt-options';
import { AttemptSettle } from './attempt-settle';
import { enterConcurrencyGate, OPEN_GATE, type GateVerdict } from './concurrency-gate';
import type { JobExecution } from './outcome';
import { isThrownInstance } from './render-error';
import { RunAbort } from './run-abort';
import { withRunScope } from './run-context';
import { StepSuspension } from './step-suspension';

/** Whether the attempt should stop waiting for its body: a deadline or a lost lease, never a drain. */
function stopsTheWait(reason: unknown): boolean {
  return reason instanceof JobTimeoutError || reason instanceof LeaseLostError;
}

const noop = (): void => undefined;

/** Whether a body's answer is a promise (or any thenable) to wait for, rather than its result. */
function isThenable(answer: unknown): answer is PromiseLike<unknown> {
  return (
    (typeof answer === 'object' || typeof answer === 'function') &&
    answer !== null &&
    typeof (answer as { then?: unknown }).then === 'function'
  );
}

/**
 * One claimed attempt, made once per run. It owns the run's abort, the body's arguments, the deadline and the settle
 * (the methods it inherits from {@link AttemptSettle}); {@link Attempt.run} reads top to bottom: the job, the input,
 * the tenant, the fleet slot, the deadline, the body, the wait, the settle. A runner that needs more of each run (the
 * worker's slot and heartbeat) extends it, so a run is one object.
 *
 * Lean by design: a worker drains tens of thousands of no-op runs a second through here, so a run that completes makes
 * no AbortController (unless its signal is read), no timer (unless the job has a deadline), no step API or progress
 * reporter (unless used), and as few promises as the path below needs.
 */
export class Attempt extends AttemptSettle {
  /** The stop that ended the wait for the body (the deadline or a lost lease), once one did. */
  #ended: unknown = undefined;

  constructor(
    o: AttemptEnv,
    claimed: ClaimedJob,
    job: RegisteredJob | undefined,
    /** The run's cancellation: the deadline, a lost fleet slot, and whoever runs the attempt abort it. */
    readonly abort: RunAbort,
  ) {
    super(o, claimed, job, new AttemptContext(claimed, abort, null));
  }

  /** Runs the attempt to its outcome and settles the row; never throws for a body's failure (the outcome says it). */
  run(): Promise<JobExecution> {
    // tracing off (no API, no provider) costs this check and nothing else
    return tracingOn() ? traceRun(this.claimed, () => this.#attempt()) : this.#attempt();
  }

  /**
   * The path itself: each step either settles the attempt or hands on to the next — the job, the input
   * ({@link Attempt.#parsed}), the tenant, the fleet slot and the deadline ({@link Attempt.#guarded}), the body, the
   * wait and the settle ({@link Attempt.#body}). Chained rather than `async`: a no-op run pays for no async frame.
   */
  #attempt(): Promise<JobExecution> {
    const { job, claimed } = this;
    if (job === undefined) return this.fail(new JobUnknownError(claimed.name), undefined);
    const { handle, body } = job;
    if (body === undefined) return this.fail(new JobUnboundError(claimed.name), undefined);
    // a synchronous validator's answer is used at once: no promise, no turn of the microtask queue before the body
    let parsed: ParseResult<unknown> | Promise<ParseResult<unknown>>;
    try {
      parsed = handle.parseInputNow(claimed.input);
    } catch (error) {
      // a validator that throws (rather than answering issues) fails the attempt like the body would: a rejected
      // attempt settled nothing, and the row sat running, its error in no row, until its lease lapsed
      return this.fail(error, undefined);
    }
    return parsed instanceof Promise
      ? parsed.then(
          (p) => this.#parsed(p, handle, body),
          (error: unknown) => this.fail(error, undefined),
        )
      : this.#parsed(parsed, handle, body);
  }

  /** The input parsed: its tenant, then the body — straight away for a job with no fleet cap and no deadline (most). */
  #parsed(
    parsed: ParseResult<unknown>,
    handle: AnyJobHandle,
    body: JobBody,
  ): Promise<JobExecution> {
    if (!parsed.ok)
      return this.fail(new JobInputInvalidError(this.claimed.name, parsed.issues), undefined);
    const input: unknown = parsed.value;
    try {
      const orgId = handle.tenantOf(input);
      if (orgId !== null) this.ctx = new AttemptContext(this.claimed, this.abort, orgId);
    } catch (error) {
      return this.fail(error, input);
    }
    // nothing to undo after the settle: the settle is the attempt's answer, with no promise around it
    if (handle.concurrency === null && handle.timeoutMs === undefined)
      return this.#body(body, handle, input);
    return this.#guarded(body, handle, input);
  }

  /** The body of a job with a fleet cap or a deadline: the slot taken and the deadline armed around it, undone after. */
  async #guarded(body: JobBody, handle: AnyJobHandle, input: unknown): Promise<JobExecution> {
    let gate: GateVerdict;
    try {
      // a job without a fleet cap passes the gate without a promise
      gate = handle.concurrency === null ? OPEN_GATE : await this.#enterGate(handle, input);
    } catch (error) {
      return this.fail(error, input);
    }
    if (gate.kind !== 'open') {
      return gate.kind === 'wait' ? this.handBack(gate.key) : this.refuse(gate.key, input);
    }
    const disarm = this.#armDeadline(handle.timeoutMs);
    try {
      return await this.#body(body, handle, input);
    } finally {
      disarm();
      if (gate !== OPEN_GATE) await gate.leave();
    }
  }

  /**
   * The body inside the run's scope, and the settle its outcome calls for. A body that answers at once (a value, or a
   * throw) has nothing to wait for: only a promise is raced against the stops ({@link Attempt.#waitFor}).
   */
  #body(body: JobBody, handle: AnyJobHandle, input: unknown): Promise<JobExecution> {
    // a lease lost before the body starts (a fleet slot or an async validator that took longer than the lease): the
    // row may already be another worker's, so its body must not start here — and no wait would hear of the loss
    if (this.abort.hardStopped && isThrownInstance(this.abort.hardReason, LeaseLostError))
      return Promise.resolve(this.lost('lease'));
    // the body's arguments and its ambient scope; the step API, progress and signal are made on first use
    const args = new AttemptArgs(this, handle, input, this.ctx);
    let answer: unknown;
    let promised: boolean;
    try {
      answer = withRunScope(args, () => body(args));
      promised = isThenable(answer);
    } catch (error) {
      return this.#stopped(error, undefined, args, input);
    }
    return promised
      ? this.#waitFor(Promise.resolve(answer), args, input)
      : this.#returned(answer, args, input);
  }

  /**
   * Waits for a body that answered a promise: the settle its result calls for, or the one the stop that ended the wait
   * calls for — the deadline or a lost lease ({@link stopsTheWait}), whatever stopped the run before (a drain, a lost
   * fleet slot). A drain stops the run without ending the wait, so its body may unwind (or finish what is on the wire);
   * a body that ignores the drain is still torn down at the attempt's deadline, where the job is handed on (hence the
   * README's "Set `timeout` below the shutdown deadline"), or as soon as its lease is lost, rather than held until the
   * drain budget is spent. ONE promise for the race, whichever side decides first: not an async wait around a race.
   */
  #waitFor(running: Promise<unknown>, args: AttemptArgs, input: unknown): Promise<JobExecution> {
    return new Promise<JobExecution>((resolve, reject) => {
      let decided = false;
      /** The first side to call decides; what it settles with answers the attempt (a throw rejects it). */
      const decide = (settle: () => Promise<JobExecution>): void => {
        if (decided) return;
        decided = true;
        try {
          resolve(settle());
        } catch (error) {
          reject(error);
        }
      };
      running.then(
        (result) => decide(() => this.#returned(result, args, input)),
        (error: unknown) => decide(() => this.#stopped(error, running, args, input)),
      );
      this.abort.onStop((reason) => {
        if (decided || !stopsTheWait(reason)) return;
        this.#ended = reason;
        decide(() => this.#stopped(reason, running, args, input));
      });
    });
  }

  /**
   * The body returned: its last progress written if it was held back, then the ack — or the park, when a sleep or wait
   * suspended the run and the body caught it (the wait is not over because the body went on).
   */
  #returned(result: unknown, args: AttemptArgs, input: unknown): Promise<JobExecution> {
    const suspended = args.suspension.raised;
    if (suspended !== undefined) return this.#parked(suspended, args);
    const flushing = args.flushProgress();
    return flushing === undefined
      ? this.complete(result, input)
      : flushing.then(() => this.complete(result, input));
  }

  /** Parks the run until the suspension's time, its last progress written first. */
  async #parked(suspension: StepSuspension, args: AttemptArgs): Promise<JobExecution> {
    await args.flushProgress();
    return this.park(suspension.resumeAt);
  }

  /** Takes the job's fleet slot for the input's key; a renewal that finds it taken aborts the run. */
  #enterGate(handle: AnyJobHandle, input: unknown): Promise<GateVerdict> {
    const { o } = this;
    const ttlMs = o.visibilityTimeoutMs ?? 30_000;
    return enterConcurrencyGate({
      handle,
      input,
      jobId: this.claimed.id,
      leases: o.leases ?? o.driver.leases,
      ttlMs,
      renewEveryMs: o.heartbeatIntervalMs ?? Math.max(1, Math.floor(ttlMs / 3)),
      clock: o.clock,
      logger: o.logger,
      onLost: (error) => this.abort.abort(error),
    });
  }

  /** Arms the job's `timeout` (no timer without one): a hard stop, so it reaches a drained run too. Answers the disarm. */
  #armDeadline(timeoutMs: number | undefined): () => void {
    if (timeoutMs === undefined) return noop;
    return this.o.clock.setTimeout(
      () => this.abort.abort(new JobTimeoutError(`Job "${this.claimed.name}" attempt`, timeoutMs)),
      timeoutMs,
    ).cancel;
  }

  /** The wait ended without a result: suspended, drained, lease lost, or failed (its own throw or the deadline). */
  async #stopped(
    error: unknown,
    running: Promise<unknown> | undefined,
    args: AttemptArgs,
    input: unknown,
  ): Promise<JobExecution> {
    const { abort } = this;
    const ended = this.#ended;
    // the first stop, unless a lost lease ended the wait after it: a drained run whose lease is gone is no longer
    // this worker's to hand back
    const reason: unknown = ended instanceof LeaseLostError ? ended : abort.reason;
    // a stop ended the wait only for a body that answered a promise
    if (ended !== undefined && running !== undefined)
      watchAbandoned(
        running,
        abort,
        this.o.logger,
        this.logFields(),
        ended instanceof JobTimeoutError,
      );
    // a suspension the body caught and followed with another throw (a wrapped rethrow) still parks the run
    const suspended = isThrownInstance(error, StepSuspension) ? error : args.suspension.raised;
    if (suspended !== undefined) return this.#parked(suspended, args);
    if (reason instanceof JobDrainedError) {
      await args.flushProgress();
      return this.interrupt(reason);
    }
    if (reason instanceof LeaseLostError || isThrownInstance(error, LeaseLostError)) {
      return this.lost('lease');
    }
    await args.flushProgress();
    return this.fail(ended instanceof JobTimeoutError ? ended : error, input);
  }
}
