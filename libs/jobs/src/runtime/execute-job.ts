import { isFinalAttempt } from '../declare/retry-policy';
import type { AckOptions, JobDriver } from '../driver/job-driver';
import type { LeaseStore } from '../driver/lease-store';
import { enterConcurrencyGate, OPEN_GATE, type GateVerdict } from './concurrency-gate';
import type { ClaimedJob } from '../driver/job-row';
import { JobInputInvalidError } from '../errors/declaration-errors';
import { errorCodeOf } from '../errors/jobs-error';
import {
  JobDrainedError,
  JobTimeoutError,
  JobUnboundError,
  JobUnknownError,
  LeaseLostError,
} from '../errors/runtime-errors';
import type { EventBus } from '../events/event-bus';
import type { RegisteredJob } from '../registry/job-registry';
import type { Clock } from '../util/clock';
import type { JobsLogger } from '../util/logger';
import {
  answered,
  errorText,
  fail,
  finish,
  handBack,
  logFields,
  lost,
  refuse,
  type Attempt,
} from './attempt-settle';
import type { JobMetrics } from './metrics';
import { notifyOnSettled } from './on-settled';
import type { JobExecution } from './outcome';
import { AttemptArgs, AttemptContext } from './attempt-args';
import { isThrownInstance } from './render-error';
import { RunAbort } from './run-abort';
import { withRunScope } from './run-context';
import { StepSuspension } from './step-suspension';
import { traceRun, tracingOn } from '../tracing/run-span';

/** What one attempt needs. */
export interface ExecuteJobOptions {
  readonly driver: JobDriver;
  /** The registered job for the row's name; undefined when this process does not know it. */
  readonly job: RegisteredJob | undefined;
  readonly claimed: ClaimedJob;
  readonly clock: Clock;
  readonly logger: JobsLogger;
  readonly events: EventBus;
  readonly metrics?: JobMetrics;
  /** A signal the run follows: aborted on a drain (`X_DRAINING`), a lost lease or a cancel. */
  readonly signal?: AbortSignal;
  /**
   * The run's own abort, when the caller makes one per run (the worker does): the attempt aborts it directly
   * (deadline, lost fleet slot), and its `AbortSignal` is made only if the body reads it. Takes the place of `signal`.
   */
  readonly abort?: RunAbort;
  /** The random source of jitter (tests pin it). */
  readonly random?: () => number;
  /**
   * Told once the attempt's settle (ack or nack) was answered, before onSettled runs: from there the run holds no
   * lease, so the worker stops renewing it — a renewal after the ack would come back refused and read as a lost lease.
   */
  readonly onSettle?: (landed: boolean) => void;
  /**
   * Sends the completed attempt's ack (default `driver.ack`). The worker passes its batcher, which also hands the
   * run's slot on: the body is done once the ack is sent.
   */
  readonly ack?: (jobId: string, options: AckOptions) => Promise<boolean>;
  /** The fleet lease store `job.concurrency` is enforced through (default `driver.leases`). */
  readonly leases?: LeaseStore;
  /** The lease a held fleet slot lives for without renewal: the worker's visibility timeout (default 30 s). */
  readonly visibilityTimeoutMs?: number;
  /** How often a held fleet slot is renewed: the worker's heartbeat interval (default a third of the lease). */
  readonly heartbeatIntervalMs?: number;
  /** How long a run a cap handed back waits before it is due again: one poll (default 250 ms). */
  readonly handBackMs?: number;
}

/** Whether the attempt should stop waiting for its body: a deadline or a lost lease, never a drain. */
function stopsTheWait(reason: unknown): boolean {
  return reason instanceof JobTimeoutError || reason instanceof LeaseLostError;
}

const noop = (): void => undefined;

/**
 * Runs one claimed attempt to its outcome and settles the row, fenced on its claim: completed (ack), suspended
 * (parked, uncounted), interrupted (drain, uncounted), retried, dead-lettered or dropped. Never throws for a body's
 * failure: the outcome carries it.
 *
 * Lean by design: a worker drains tens of thousands of no-op runs a second through here, so a run that completes makes
 * no AbortController (unless its signal is read), no timer (unless the job has a deadline), no step API or progress
 * reporter (unless used), and as few promises as the awaits below need.
 */
export function executeJob(o: ExecuteJobOptions): Promise<JobExecution> {
  const { claimed, clock } = o;
  const started = clock.now();
  const retry = o.job?.handle.retry;
  let abort = o.abort;
  let dispose = noop;
  if (abort === undefined) {
    if (o.signal === undefined) abort = new RunAbort();
    else ({ run: abort, dispose } = RunAbort.following(o.signal));
  }
  const a: Attempt = {
    o,
    claimed,
    claim: { workerId: claimed.workerId, claim: claimed.claim },
    started,
    final:
      retry === undefined
        ? claimed.attempt >= claimed.maxAttempts
        : isFinalAttempt(retry, claimed.attempt),
    retry,
    ctx: new AttemptContext(claimed, abort, null),
  };
  // tracing off (no API, no provider) costs this check and nothing else
  if (tracingOn()) return traceRun(claimed, () => settledAttempt(a, abort, dispose));
  return settledAttempt(a, abort, dispose);
}

/** The attempt, with the run abort's link to the caller's signal undone once it ends. */
function settledAttempt(a: Attempt, abort: RunAbort, dispose: () => void): Promise<JobExecution> {
  return dispose === noop ? attempt(a, abort) : attempt(a, abort).finally(dispose);
}

/** The attempt behind {@link executeJob}, under its run's abort. */
async function attempt(a: Attempt, abort: RunAbort): Promise<JobExecution> {
  const { o, claimed, claim } = a;
  const { driver, clock, logger } = o;
  if (o.job === undefined) return fail(a, new JobUnknownError(claimed.name), undefined);
  const { handle, body } = o.job;
  if (body === undefined) return fail(a, new JobUnboundError(claimed.name), undefined);
  const parsed = await handle.parseInput(claimed.input);
  if (!parsed.ok) return fail(a, new JobInputInvalidError(claimed.name, parsed.issues), undefined);
  const input: unknown = parsed.value;
  try {
    const orgId = handle.tenantOf(parsed.value);
    if (orgId !== null) a.ctx = new AttemptContext(claimed, abort, orgId);
  } catch (error) {
    return fail(a, error, input);
  }

  let gate: GateVerdict;
  try {
    const ttlMs = o.visibilityTimeoutMs ?? 30_000;
    // a job without a fleet cap (most) passes the gate without a promise
    gate =
      handle.concurrency === null
        ? OPEN_GATE
        : await enterConcurrencyGate({
            handle,
            input,
            jobId: claimed.id,
            leases: o.leases ?? driver.leases,
            ttlMs,
            renewEveryMs: o.heartbeatIntervalMs ?? Math.max(1, Math.floor(ttlMs / 3)),
            clock,
            logger,
            onLost: (error) => abort.abort(error),
          });
  } catch (error) {
    return fail(a, error, input);
  }
  if (gate.kind !== 'open') {
    return gate.kind === 'wait' ? handBack(a, gate.key) : refuse(a, gate.key, input);
  }
  const timeoutMs = handle.timeoutMs;
  let deadlinePassed = false;
  // Set once the wait below exists: the deadline ends the wait even when a drain aborted the run first.
  let endWaitAtDeadline: ((reason: unknown) => void) | undefined;
  const disarm =
    timeoutMs === undefined
      ? noop
      : clock.setTimeout(() => {
          if (!abort.aborted)
            abort.abort(new JobTimeoutError(`Job "${claimed.name}" attempt`, timeoutMs));
          deadlinePassed = true;
          endWaitAtDeadline?.(abort.reason);
        }, timeoutMs).cancel;
  try {
    const ctx = a.ctx;
    // the body's arguments and its ambient scope; the step API, progress and signal are made on first use
    const args = new AttemptArgs(a, handle, abort, input, ctx);
    let bodyPromise: Promise<unknown>;
    try {
      // Called here, inside the run's scope: a body that throws at once is a rejected attempt like any other.
      bodyPromise = Promise.resolve(withRunScope(args, () => body(args)));
    } catch (error) {
      bodyPromise = Promise.reject(error);
    }
    // ONE promise for the wait (not a race, which costs three): the body's outcome, or what stops waiting for it.
    const waited = new Promise<unknown>((resolve, reject) => {
      bodyPromise.then(resolve, reject);
      abort.onAbort((reason) => {
        if (stopsTheWait(reason)) reject(reason);
      });
      // A drain aborts the run without ending the wait, so its body may unwind; but a body that ignores the drain
      // is still torn down at the attempt's deadline, where the job is handed on (hence the README's "Set
      // `timeout` below the shutdown deadline"), rather than held until the drain budget is spent and the lease
      // lapses as a counted attempt.
      endWaitAtDeadline = reject;
      if (deadlinePassed) reject(abort.reason);
    });
    let result: unknown;
    try {
      result = await waited;
    } catch (error) {
      const reason: unknown = abort.aborted ? abort.reason : undefined;
      if (reason !== undefined && (stopsTheWait(reason) || deadlinePassed))
        watchAbandoned(bodyPromise, abort, logger, logFields(a), deadlinePassed);
      if (isThrownInstance(error, StepSuspension)) {
        await args.flushProgress();
        const landed = await answered(a, 'park', () =>
          driver.nack(claimed.id, {
            ...claim,
            error: null,
            park: true,
            uncounted: true,
            runAt: error.resumeAt,
            durationMs: clock.now() - a.started,
          }),
        );
        return landed ? finish(a, 'suspended', { resumeAt: error.resumeAt }) : lost(a, 'park');
      }
      if (reason instanceof JobDrainedError) {
        await args.flushProgress();
        const landed = await answered(a, 'interrupt', () =>
          driver.nack(claimed.id, {
            ...claim,
            error: errorText(reason),
            uncounted: true,
            durationMs: clock.now() - a.started,
          }),
        );
        if (!landed) return lost(a, 'interrupt');
        logger.log('info', 'jobs.attempt.interrupted', { ...logFields(a), reason: reason.message });
        return finish(a, 'interrupted', { error: reason });
      }
      if (reason instanceof LeaseLostError || isThrownInstance(error, LeaseLostError)) {
        return lost(a, 'lease');
      }
      await args.flushProgress();
      return await fail(a, reason instanceof JobTimeoutError ? reason : error, input);
    }
    const flushing = args.flushProgress();
    if (flushing !== undefined) await flushing;
    const ackOptions: AckOptions = {
      workerId: claim.workerId,
      claim: claim.claim,
      durationMs: clock.now() - a.started,
    };
    const landed = await answered(a, 'ack', () =>
      o.ack === undefined ? driver.ack(claimed.id, ackOptions) : o.ack(claimed.id, ackOptions),
    );
    if (!landed) return lost(a, 'ack');
    if (handle.hasOnSettled !== false) {
      await notifyOnSettled(
        handle,
        { outcome: 'completed', jobId: claimed.id, runId: claimed.runId, input, result, ctx },
        ctx,
        logger,
      );
    }
    return finish(a, 'completed', { result });
  } finally {
    disarm();
    if (gate !== OPEN_GATE) await gate.leave();
  }
}

/**
 * A body the attempt stopped waiting for still runs. When it finally ends without having unwound on the signal —
 * it returned, or threw something other than the abort — it is a handler that never reads `ctx.signal`: report it.
 */
function watchAbandoned(
  body: Promise<unknown>,
  signal: RunAbort,
  logger: JobsLogger,
  base: Readonly<Record<string, unknown>>,
  deadline: boolean,
): void {
  const report = (): void =>
    logger.log('warn', 'jobs.timeout.abandoned', {
      ...base,
      cause: deadline ? 'timeout' : 'lease-lost',
    });
  body.then(report, (error: unknown) => {
    if (error !== signal.reason && errorCodeOf(error) !== 'X_ABORTED') report();
  });
}
