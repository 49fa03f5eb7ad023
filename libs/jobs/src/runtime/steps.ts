import type { JobDriver, StepRecord } from '../driver/job-driver';
import type { ClaimRef } from '../driver/job-row';
import type { StepApi, WaitForEventOptions } from '../declare/run-args';
import {
  JobAbortedError,
  JobTimeoutError,
  LeaseLostError,
  StepDuplicateError,
  StepOutputInvalidError,
} from '../errors/runtime-errors';
import { ValueInvalidError } from '../errors/value-errors';
import type { EventBus } from '../events/event-bus';
import type { Clock } from '../util/clock';
import type { Duration } from '../util/duration';
import { jsonProblem, type JsonValue } from '../util/json';
import { MAX_STEP_NAME_LENGTH } from '../values/bounds';
import { eventNameProblem } from '../values/event';
import { identifierProblem } from '../values/text';
import { armDeadline, childController, raceAbort } from './deadlines';
import { StepSuspension, type SuspensionLatch } from './step-suspension';
import { describeReason, stepDuration, waitTimedOut } from './step-values';
import { tracingOn } from '../tracing/run-span';
import { traceReplayedStep, traceStep, tracedStepApi } from '../tracing/step-spans';

/** What the step API of one attempt works on. */
export interface StepRuntime {
  readonly driver: JobDriver;
  readonly jobId: string;
  readonly claim: ClaimRef;
  readonly attempt: number;
  readonly clock: Clock;
  readonly events: EventBus;
  /**
   * The attempt's signal, what a step's function is handed: once aborted (a drain too), no step starts and no sleep or
   * wait is recorded — `X_ABORTED`.
   */
  readonly signal: AbortSignal;
  /**
   * The attempt's hard stops only (the deadline, a lost lease, a cancel; never a drain): what a `step.run` already
   * under way is raced against, and what refuses its output. A drain lets a step on the wire finish and be stored, so
   * the attempt that takes the run again replays it rather than running it twice. Absent: `signal` serves for both.
   */
  readonly hardSignal?: AbortSignal;
  readonly stepTimeoutMs: number | undefined;
  readonly eventPollMs: number;
  /** The run's tenant (null: `tenant: 'none'`): a `waitForEvent` matches only events published under it. */
  readonly tenant?: string | null;
  /**
   * Where the attempt keeps the suspension a sleep or wait raised: once one is, every step call throws it again (a body
   * that caught it must not go on as if the wait were over). Absent: nothing is kept (a step API outside an attempt).
   */
  readonly suspension?: SuspensionLatch;
  /**
   * The steps stored by earlier attempts, read on the first step call — a body that calls no step (most jobs) costs
   * no statement for them. A read that fails fails that step call, and with it the attempt, which retries.
   */
  readonly load: () => Promise<readonly StepRecord[]>;
}

/** The suffix of the record that holds a waitForEvent's answer, beside the record of when it began waiting. */
const EVENT_RESULT = '#event';

/** Builds the durable step API of one attempt. */
export function createStepApi(rt: StepRuntime): StepApi {
  const steps = new AttemptSteps(rt);
  const api: StepApi = {
    run: steps.run,
    sleep: steps.sleep as StepApi['sleep'],
    waitForEvent: steps.waitForEvent,
  };
  return tracingOn() ? tracedStepApi(api) : api;
}

/**
 * The step state of one attempt: the names claimed so far and the steps earlier attempts stored. Its entry points are
 * arrow fields, so the API object can hand them out detached (`const { run } = step`) with nothing bound per call.
 */
class AttemptSteps {
  readonly #rt: StepRuntime;
  readonly #seen = new Set<string>();
  readonly #stored = new Map<string, StepRecord>();
  #loaded: Promise<void> | undefined;

  constructor(rt: StepRuntime) {
    this.#rt = rt;
  }

  /** Reads the stored steps once per attempt; steps called together share the one read. */
  #ensureLoaded(): Promise<void> {
    return (this.#loaded ??= this.#rt.load().then((records) => {
      for (const record of records) {
        if (!this.#stored.has(record.name)) this.#stored.set(record.name, record);
      }
    }));
  }

  /** The suspension to throw, kept by the attempt's latch (when it has one) so every later step call throws it too. */
  #suspend(suspension: StepSuspension): StepSuspension {
    return this.#rt.suspension?.raise(suspension) ?? suspension;
  }

  /** Throws the attempt's suspension again when a step already raised one: the body caught it, and must not go on. */
  #refuseIfSuspended(): void {
    const raised = this.#rt.suspension?.raised;
    if (raised !== undefined) throw raised;
  }

  #claimName(name: string): void {
    // A name is the replay key: one a driver would store altered (a lone surrogate becomes U+FFFD) never matches
    // again, and the step would run on every attempt. Refused before anything runs.
    const problem = identifierProblem(name, MAX_STEP_NAME_LENGTH);
    if (problem !== undefined) throw new ValueInvalidError('step name', problem);
    if (this.#seen.has(name)) throw new StepDuplicateError(name);
    this.#seen.add(name);
  }

  #refuseIfAborted(what: string, signal: AbortSignal = this.#rt.signal): void {
    if (signal.aborted) {
      throw new JobAbortedError(
        `step "${what}" was not written (${describeReason(signal.reason)})`,
      );
    }
  }

  /** Stores a step's record; refused once `refusedBy` aborted (the attempt's signal, unless named). */
  async #write(
    name: string,
    output: JsonValue | undefined,
    startedAt: number,
    refusedBy: AbortSignal = this.#rt.signal,
  ): Promise<void> {
    const rt = this.#rt;
    this.#refuseIfAborted(name, refusedBy);
    const record: StepRecord = {
      name,
      ...(output === undefined ? {} : { output }),
      attempt: rt.attempt,
      startedAt,
      completedAt: rt.clock.now(),
    };
    const landed = await rt.driver.steps.save(rt.jobId, rt.claim, record);
    if (!landed) throw new LeaseLostError(rt.jobId);
    // not kept: a name is claimed once per attempt, so nothing here reads a step this attempt wrote — and a body of
    // many steps (an export's page per step) would otherwise hold every output for the whole run
  }

  readonly run = async <T>(
    name: string,
    fn: (signal: AbortSignal) => T | Promise<T>,
  ): Promise<T> => {
    this.#refuseIfSuspended();
    this.#claimName(name);
    await this.#ensureLoaded();
    const done = this.#stored.get(name);
    if (done !== undefined) {
      // replayed once (the name is claimed): let the record go, so a resumed run does not hold all it replayed
      this.#stored.delete(name);
      if (tracingOn()) traceReplayedStep(name, done.attempt);
      return done.output as T;
    }
    return tracingOn()
      ? traceStep('run', name, {}, () => this.#execute(name, fn))
      : this.#execute(name, fn);
  };

  /** Runs a step no earlier attempt stored, and stores its output. */
  async #execute<T>(name: string, fn: (signal: AbortSignal) => T | Promise<T>): Promise<T> {
    const rt = this.#rt;
    // a drain refuses a step not yet started; one under way is waited for unless a hard stop comes
    this.#refuseIfAborted(name);
    const hard = rt.hardSignal ?? rt.signal;
    const startedAt = rt.clock.now();
    const value =
      rt.stepTimeoutMs === undefined
        ? await raceAbort(fn(rt.signal), hard)
        : await this.#withinDeadline(name, rt.stepTimeoutMs, fn);
    if (value !== undefined) {
      const problem = jsonProblem(value);
      if (problem !== undefined) throw new StepOutputInvalidError(name, problem);
    }
    // the body gets the stored form, as every replay will: the same value, whatever the driver
    const output =
      value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as JsonValue);
    await this.#write(name, output, startedAt, hard);
    return output as T;
  }

  /**
   * Runs a step's function under its own deadline: its signal aborts at `ms`, or with the attempt's; the wait for it
   * ends at `ms`, or at the attempt's hard stop (a drain lets it finish).
   */
  async #withinDeadline<T>(
    name: string,
    ms: number,
    fn: (signal: AbortSignal) => T | Promise<T>,
  ): Promise<T> {
    const rt = this.#rt;
    const timeout = (): JobTimeoutError => new JobTimeoutError(`Step "${name}"`, ms);
    const told = childController(rt.signal);
    const ends = rt.hardSignal === undefined ? told : childController(rt.hardSignal);
    const disarm = armDeadline(rt.clock, ms, told.controller, timeout, () => {
      if (!ends.controller.signal.aborted) ends.controller.abort(timeout());
    });
    try {
      return await raceAbort(fn(told.controller.signal), ends.controller.signal);
    } finally {
      disarm();
      told.dispose();
      ends.dispose();
    }
  }

  readonly sleep = async (nameOrDuration: string | Duration, maybe?: Duration): Promise<void> => {
    this.#refuseIfSuspended();
    const rt = this.#rt;
    const name = maybe === undefined ? `sleep:${String(nameOrDuration)}` : String(nameOrDuration);
    const duration = maybe === undefined ? nameOrDuration : maybe;
    const ms = stepDuration(name, 'step.sleep duration', duration);
    this.#claimName(name);
    await this.#ensureLoaded();
    const record = this.#stored.get(name);
    if (record === undefined) {
      const wakeAt = rt.clock.now() + ms;
      await this.#write(name, { wakeAt }, rt.clock.now());
      throw this.#suspend(new StepSuspension(wakeAt, name));
    }
    const wakeAt = (record.output as { wakeAt?: number } | undefined)?.wakeAt ?? 0;
    if (rt.clock.now() < wakeAt) throw this.#suspend(new StepSuspension(wakeAt, name));
  };

  readonly waitForEvent = async <P>(
    name: string,
    event: string,
    options: WaitForEventOptions<P> = {},
  ): Promise<P> => {
    this.#refuseIfSuspended();
    const rt = this.#rt;
    // Checked before anything is read or written: a timeout that does not parse must not become "no timeout".
    const timeoutMs =
      options.timeout === undefined
        ? undefined
        : stepDuration(name, 'waitForEvent timeout', options.timeout);
    // an event name no bus can look up is refused before the wait is recorded, as a step name is
    const eventProblem = eventNameProblem(event);
    if (eventProblem !== undefined) throw new ValueInvalidError('waitForEvent event', eventProblem);
    this.#claimName(name);
    // the answer's record is this wait's too: a step of that name would be replayed as the answer, or the answer as it
    this.#claimName(name + EVENT_RESULT);
    await this.#ensureLoaded();
    const answered = this.#stored.get(name + EVENT_RESULT);
    let waiting = this.#stored.get(name)?.output as
      { since: number; timeoutAt: number | null } | undefined;
    if (answered !== undefined) {
      if (answered.output !== undefined) return answered.output as P;
      // the wait timed out on an earlier pass: the same verdict, whatever was published since
      throw waitTimedOut(name, event, waiting);
    }
    if (waiting === undefined) {
      const since = await rt.events.now();
      waiting = { since, timeoutAt: timeoutMs === undefined ? null : since + timeoutMs };
      await this.#write(name, waiting, rt.clock.now());
    }
    const match = options.match;
    // only the run's own tenant's events: another tenant's answer must never resume this run
    const hit = await rt.events.find(
      event,
      waiting.since,
      match === undefined ? undefined : (p) => match(p as P),
      rt.tenant === undefined ? undefined : { tenant: rt.tenant },
    );
    if (hit !== undefined) {
      await this.#write(name + EVENT_RESULT, hit.payload, rt.clock.now());
      return hit.payload as P;
    }
    // Ask the bus's clock again before declaring a timeout: a worker running ahead of it must not give up early.
    const busNow = await rt.events.now();
    if (waiting.timeoutAt !== null && busNow >= waiting.timeoutAt) {
      // The verdict is stored (an answer with no output), as an answer is: a body that catches the timeout takes the
      // same branch on every replay, where an event published after it would have answered the wait on the next.
      await this.#write(name + EVENT_RESULT, undefined, rt.clock.now());
      throw waitTimedOut(name, event, waiting);
    }
    const park =
      waiting.timeoutAt === null
        ? rt.eventPollMs
        : Math.min(rt.eventPollMs, waiting.timeoutAt - busNow);
    throw this.#suspend(new StepSuspension(rt.clock.now() + Math.max(1, park), name));
  };
}
