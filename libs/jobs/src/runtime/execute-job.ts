import type { JobRunContext, RunArgs, StepApi } from '../declare/run-args';
import { isFinalAttempt } from '../declare/retry-policy';
import type { AckOptions, JobDriver } from '../driver/job-driver';
import type { LeaseStore } from '../driver/lease-store';
import { JobKeyBusyError } from '../errors/operator-errors';
import { enterConcurrencyGate, OPEN_GATE, type GateVerdict } from './concurrency-gate';
import { claimOf, type ClaimedJob } from '../driver/job-row';
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
import { armDeadline, childController } from './deadlines';
import { errorRetryOf, retryAfterSecondsOf } from './error-retry';
import type { JobMetrics } from './metrics';
import { notifyOnSettled } from './on-settled';
import { jobsTotalOutcome, type JobExecution, type JobOutcome, type StopReason } from './outcome';
import { progressReporter, type ProgressReporter } from './progress';
import { retryDelay, statedDelay } from './retry-schedule';
import { withRunScope, type RunScope } from './run-context';
import { StepSuspension } from './step-suspension';
import { createStepApi } from './steps';

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
  /** The worker's signal for this run: aborted on a drain (`X_DRAINING`), a lost lease or a cancel. */
  readonly signal: AbortSignal;
  /**
   * The controller of `signal`, when it is this run's alone (the worker makes one per run): the attempt then aborts it
   * directly (deadline, lost fleet slot) instead of deriving a child controller — an AbortSignal per run less.
   */
  readonly controller?: AbortController;
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

/** Renders an error for `lastError`: its code and message. */
function errorText(error: unknown): string {
  if (error instanceof Error) {
    const code = errorCodeOf(error);
    return code === undefined || error.message.startsWith(code)
      ? error.message
      : `${code}: ${error.message}`;
  }
  return String(error);
}

/**
 * Runs one claimed attempt to its outcome and settles the row, fenced on its claim: completed (ack), suspended
 * (parked, uncounted), interrupted (drain, uncounted), retried, dead-lettered or dropped. Never throws for a body's
 * failure: the outcome carries it.
 */
export async function executeJob(o: ExecuteJobOptions): Promise<JobExecution> {
  const { driver, claimed, clock, logger } = o;
  const started = clock.now();
  const claim = claimOf(claimed);
  const base = {
    job: claimed.name,
    jobId: claimed.id,
    runId: claimed.runId,
    attempt: claimed.attempt,
    queue: claimed.queue,
  };
  const retry = o.job?.handle.retry;
  const final =
    retry === undefined
      ? claimed.attempt >= claimed.maxAttempts
      : isFinalAttempt(retry, claimed.attempt);
  const ctxBase = {
    jobId: claimed.id,
    runId: claimed.runId,
    name: claimed.name,
    attempt: claimed.attempt,
  };
  let ctx: JobRunContext = {
    ...ctxBase,
    actor: { id: claimed.enqueuedBy, orgId: null },
    signal: o.signal,
  };

  const finish = (outcome: JobOutcome, extra: Partial<JobExecution> = {}): JobExecution => {
    const total = jobsTotalOutcome(outcome);
    if (total !== undefined) o.metrics?.jobsTotal(claimed.queue, total);
    return { jobId: claimed.id, outcome, durationMs: clock.now() - started, ...extra };
  };

  const answered = async (settle: Promise<boolean>): Promise<boolean> => {
    const landed = await settle;
    o.onSettle?.(landed);
    return landed;
  };

  const lost = (why: string): JobExecution => {
    logger.log('warn', 'jobs.settle.unowned', { ...base, why });
    return finish('lost');
  };

  /** Settles a failed attempt; `input` is the parsed input, undefined when the stored payload does not parse. */
  const fail = async (error: unknown, input: unknown): Promise<JobExecution> => {
    const cls = errorRetryOf(error);
    const durationMs = clock.now() - started;
    if (cls === 'terminal' || final) {
      const stop: StopReason = cls === 'terminal' ? 'terminal' : 'attempts-exhausted';
      const deadLetter = retry?.deadLetter ?? true;
      const code = errorCodeOf(error);
      const text =
        stop === 'terminal'
          ? `${errorText(error)} [terminal: ${code ?? 'unclassified'}; attempt ${claimed.attempt} of ${claimed.maxAttempts}]`
          : errorText(error);
      const landed = await answered(
        driver.nack(claimed.id, {
          ...claim,
          error: text,
          deadLetter,
          fail: !deadLetter,
          durationMs,
        }),
      );
      if (!landed) return lost('nack');
      const outcome: JobOutcome = deadLetter ? 'dead-lettered' : 'dropped';
      logger.log('error', 'jobs.attempt.failed', {
        ...base,
        stop,
        outcome,
        code,
        error: errorText(error),
      });
      if (o.job !== undefined) {
        await notifyOnSettled(
          o.job.handle,
          {
            outcome,
            jobId: claimed.id,
            runId: claimed.runId,
            input,
            error: text,
            code,
            ctx,
          },
          ctx,
          logger,
        );
      }
      return finish(outcome, { error, stopReason: stop });
    }
    const stated = cls === 'retry-after' ? retryAfterSecondsOf(error) : undefined;
    const policy = retry ?? {
      attempts: claimed.maxAttempts,
      backoff: 'exponential' as const,
      delay: 1_000,
      maxDelay: 3_600_000,
      jitter: true,
      deadLetter: true,
    };
    const delay =
      stated !== undefined
        ? statedDelay(policy, stated * 1_000, o.random)
        : retryDelay(policy, claimed.attempt, o.random);
    const resumeAt = clock.now() + delay;
    const landed = await answered(
      driver.nack(claimed.id, { ...claim, error: errorText(error), runAt: resumeAt, durationMs }),
    );
    if (!landed) return lost('nack');
    logger.log('warn', 'jobs.attempt.failed', {
      ...base,
      outcome: 'retried',
      code: errorCodeOf(error),
      error: errorText(error),
      retryInMs: delay,
    });
    return finish('retried', { error, resumeAt });
  };

  /** A cap is full: hand the claim straight back, attempt uncounted, due again after one poll. */
  const handBack = async (key: string): Promise<JobExecution> => {
    const resumeAt = clock.now() + (o.handBackMs ?? 250);
    const landed = await answered(
      driver.nack(claimed.id, { ...claim, error: null, uncounted: true, runAt: resumeAt }),
    );
    if (!landed) return lost('hand-back');
    logger.log('debug', 'jobs.concurrency.wait', { ...base, key });
    return finish('deferred', { resumeAt });
  };

  /** `whenBusy: 'fail'` over a busy key: settled failed, the body never ran, nothing retries it. */
  const refuse = async (key: string, input: unknown): Promise<JobExecution> => {
    const error = new JobKeyBusyError(claimed.name, key);
    const landed = await answered(
      driver.nack(claimed.id, { ...claim, error: errorText(error), fail: true }),
    );
    if (!landed) return lost('refuse');
    logger.log('warn', 'jobs.attempt.refused', { ...base, key, code: error.code });
    if (o.job !== undefined) {
      await notifyOnSettled(
        o.job.handle,
        {
          outcome: 'refused',
          jobId: claimed.id,
          runId: claimed.runId,
          input,
          error: errorText(error),
          code: error.code,
          ctx,
        },
        ctx,
        logger,
      );
    }
    return finish('refused', { error });
  };

  if (o.job === undefined) return fail(new JobUnknownError(claimed.name), undefined);
  const { handle, body } = o.job;
  if (body === undefined) return fail(new JobUnboundError(claimed.name), undefined);
  const parsed = await handle.parseInput(claimed.input);
  if (!parsed.ok) return fail(new JobInputInvalidError(claimed.name, parsed.issues), undefined);
  const input: unknown = parsed.value;
  try {
    ctx = { ...ctx, actor: { id: claimed.enqueuedBy, orgId: handle.tenantOf(parsed.value) } };
  } catch (error) {
    return fail(error, input);
  }

  const { controller, dispose } =
    o.controller?.signal === o.signal
      ? { controller: o.controller, dispose: () => undefined }
      : childController(o.signal);
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
            onLost: (error) => controller.abort(error),
          });
  } catch (error) {
    dispose();
    return fail(error, input);
  }
  if (gate.kind !== 'open') {
    dispose();
    return gate.kind === 'wait' ? handBack(gate.key) : refuse(gate.key, input);
  }
  const timeoutMs = handle.timeoutMs;
  let deadlinePassed = false;
  // Set once the wait below exists: the deadline ends the wait even when a drain aborted the signal first.
  let endWaitAtDeadline: ((reason: unknown) => void) | undefined;
  const disarm = armDeadline(
    clock,
    timeoutMs,
    controller,
    () => new JobTimeoutError(`Job "${claimed.name}" attempt`, timeoutMs ?? 0),
    () => {
      deadlinePassed = true;
      endWaitAtDeadline?.(controller.signal.reason);
    },
  );
  ctx = { ...ctx, signal: controller.signal };
  // The step API and the progress reporter are built on first use: most bodies call neither, and a worker draining
  // thousands of runs a second feels every allocation (see the worker's throughput notes).
  let progressOf: ProgressReporter | undefined;
  const progress = (): ProgressReporter =>
    (progressOf ??= progressReporter(driver, claimed.id, claim, clock));
  const flushProgress = async (): Promise<void> => {
    if (progressOf !== undefined) await progressOf.flush();
  };
  let stepApi: StepApi | undefined;
  const stepOf = (): StepApi =>
    (stepApi ??= createStepApi({
      driver,
      jobId: claimed.id,
      claim,
      attempt: claimed.attempt,
      clock,
      events: o.events,
      signal: controller.signal,
      stepTimeoutMs: handle.stepTimeoutMs,
      eventPollMs: handle.eventPollMs,
      load: () => driver.steps.load(claimed.id),
    }));
  try {
    const runCtx = ctx;
    const args: RunArgs<unknown> = {
      input,
      get step() {
        return stepOf();
      },
      ctx: runCtx,
      signal: controller.signal,
      attempt: claimed.attempt,
      finalAttempt: final,
      jobId: claimed.id,
      runId: claimed.runId,
      progress: (done, total, note) => progress().report(done, total, note),
    };
    const scope: RunScope = {
      ctx: runCtx,
      get step() {
        return stepOf();
      },
    };
    const bodyPromise = withRunScope(scope, () => Promise.resolve().then(() => body(args)));
    // ONE promise for the wait (not a race, which costs three): the body's outcome, or what stops waiting for it.
    const waited = new Promise<unknown>((resolve, reject) => {
      bodyPromise.then(resolve, reject);
      const signal = controller.signal;
      const onAbort = (): void => {
        if (stopsTheWait(signal.reason)) reject(signal.reason);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      // A drain aborts the signal without ending the wait, so its body may unwind; but a body that ignores the drain
      // is still torn down at the attempt's deadline, where the job is handed on (the spec's "Set timeout below the
      // drain budget"), rather than held until the drain budget is spent and the lease lapses as a counted attempt.
      endWaitAtDeadline = reject;
      if (deadlinePassed) reject(controller.signal.reason);
    });
    let result: unknown;
    try {
      result = await waited;
    } catch (error) {
      const reason: unknown = controller.signal.aborted ? controller.signal.reason : undefined;
      if (reason !== undefined && (stopsTheWait(reason) || deadlinePassed))
        watchAbandoned(bodyPromise, controller.signal, logger, base, deadlinePassed);
      if (error instanceof StepSuspension) {
        await flushProgress();
        const landed = await answered(
          driver.nack(claimed.id, {
            ...claim,
            error: null,
            park: true,
            uncounted: true,
            runAt: error.resumeAt,
            durationMs: clock.now() - started,
          }),
        );
        return landed ? finish('suspended', { resumeAt: error.resumeAt }) : lost('park');
      }
      if (reason instanceof JobDrainedError) {
        await flushProgress();
        const landed = await answered(
          driver.nack(claimed.id, {
            ...claim,
            error: errorText(reason),
            uncounted: true,
            durationMs: clock.now() - started,
          }),
        );
        if (!landed) return lost('interrupt');
        logger.log('info', 'jobs.attempt.interrupted', { ...base, reason: reason.message });
        return finish('interrupted', { error: reason });
      }
      if (reason instanceof LeaseLostError || error instanceof LeaseLostError) {
        return lost('lease');
      }
      await flushProgress();
      return await fail(reason instanceof JobTimeoutError ? reason : error, input);
    }
    await flushProgress();
    const ack = o.ack ?? ((jobId: string, options: AckOptions) => driver.ack(jobId, options));
    const landed = await answered(ack(claimed.id, { ...claim, durationMs: clock.now() - started }));
    if (!landed) return lost('ack');
    await notifyOnSettled(
      handle,
      { outcome: 'completed', jobId: claimed.id, runId: claimed.runId, input, result, ctx },
      ctx,
      logger,
    );
    return finish('completed', { result });
  } finally {
    disarm();
    dispose();
    if (gate !== OPEN_GATE) await gate.leave();
  }
}

/**
 * A body the attempt stopped waiting for still runs. When it finally ends without having unwound on the signal —
 * it returned, or threw something other than the abort — it is a handler that never reads `ctx.signal`: report it.
 */
function watchAbandoned(
  body: Promise<unknown>,
  signal: AbortSignal,
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
