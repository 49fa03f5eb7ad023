import type { JobRunContext } from '../declare/run-args';
import type { ResolvedRetryPolicy } from '../declare/retry-policy';
import type { ClaimedJob, ClaimRef } from '../driver/job-row';
import { JobKeyBusyError } from '../errors/operator-errors';
import { errorCodeOf } from '../errors/jobs-error';
import type { ExecuteJobOptions } from './execute-job';
import { errorRetryOf, retryAfterSecondsOf } from './error-retry';
import { notifyOnSettled } from './on-settled';
import { jobsTotalOutcome, type JobExecution, type JobOutcome, type StopReason } from './outcome';
import { retryDelay, statedDelay } from './retry-schedule';
import { ERROR_TEXT_MAX_LENGTH, renderError } from './render-error';
import { resendSettle } from './settle-retry';

/**
 * What every settle of one attempt reads. One object per attempt, and module-level functions over it: an attempt
 * that completes allocates none of the failure paths' closures.
 */
export interface Attempt {
  readonly o: ExecuteJobOptions;
  readonly claimed: ClaimedJob;
  readonly claim: ClaimRef;
  readonly started: number;
  readonly final: boolean;
  readonly retry: ResolvedRetryPolicy | undefined;
  ctx: JobRunContext;
}

/** Renders an error for `lastError` and the log: {@link renderError} (code and message, bounded, never a throw). */
export function errorText(error: unknown): string {
  return renderError(error);
}

/** The fields every log line of an attempt carries (a text line prints `attempt=2/5`). */
export function logFields(a: Attempt): Record<string, unknown> {
  const c = a.claimed;
  return {
    job: c.name,
    jobId: c.id,
    runId: c.runId,
    attempt: c.attempt,
    maxAttempts: c.maxAttempts,
    queue: c.queue,
  };
}

/** The attempt's execution record, counted in `jobs_total`. */
export function finish(
  a: Attempt,
  outcome: JobOutcome,
  extra?: Partial<JobExecution>,
): JobExecution {
  const total = jobsTotalOutcome(outcome);
  if (total !== undefined) a.o.metrics?.jobsTotal(a.claimed.queue, total);
  const durationMs = a.o.clock.now() - a.started;
  a.o.metrics?.jobDuration?.(a.claimed.queue, durationMs / 1_000);
  return extra === undefined
    ? { jobId: a.claimed.id, outcome, durationMs }
    : { jobId: a.claimed.id, outcome, durationMs, ...extra };
}

/**
 * Sends a settle — again, if the driver throws on it ({@link resendSettle}) — and tells the worker it was answered
 * (the run holds no lease from here).
 */
export async function answered(
  a: Attempt,
  settle: string,
  send: () => Promise<boolean>,
): Promise<boolean> {
  let landed: boolean;
  try {
    landed = await send();
  } catch (error) {
    landed = await resendSettle(a, error, settle, send);
  }
  a.o.onSettle?.(landed);
  return landed;
}

/** A settle that did not land: the claim that holds the row now decides. */
export function lost(a: Attempt, why: string): JobExecution {
  a.o.logger.log('warn', 'jobs.settle.unowned', { ...logFields(a), why });
  return finish(a, 'lost');
}

/** Settles a failed attempt; `input` is the parsed input, undefined when the stored payload does not parse. */
export async function fail(a: Attempt, error: unknown, input: unknown): Promise<JobExecution> {
  const { o, claimed, claim, retry } = a;
  const cls = errorRetryOf(error);
  const durationMs = o.clock.now() - a.started;
  if (cls === 'terminal' || a.final) {
    const stop: StopReason = cls === 'terminal' ? 'terminal' : 'attempts-exhausted';
    const deadLetter = retry?.deadLetter ?? true;
    const code = errorCodeOf(error);
    const suffix =
      stop === 'terminal'
        ? ` [terminal: ${code ?? 'unclassified'}; attempt ${claimed.attempt} of ${claimed.maxAttempts}]`
        : '';
    // the suffix is kept whole: the error is cut to leave it room within the bound
    const text = renderError(error, ERROR_TEXT_MAX_LENGTH - suffix.length) + suffix;
    const landed = await answered(a, 'nack', () =>
      o.driver.nack(claimed.id, {
        ...claim,
        error: text,
        deadLetter,
        fail: !deadLetter,
        durationMs,
      }),
    );
    if (!landed) return lost(a, 'nack');
    const outcome: JobOutcome = deadLetter ? 'dead-lettered' : 'dropped';
    o.logger.log('error', 'jobs.attempt.failed', {
      ...logFields(a),
      stop,
      outcome,
      code,
      error: errorText(error),
    });
    if (o.job !== undefined) {
      await notifyOnSettled(
        o.job.handle,
        { outcome, jobId: claimed.id, runId: claimed.runId, input, error: text, code, ctx: a.ctx },
        a.ctx,
        o.logger,
      );
    }
    return finish(a, outcome, { error, stopReason: stop });
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
  const resumeAt = o.clock.now() + delay;
  const landed = await answered(a, 'nack', () =>
    o.driver.nack(claimed.id, {
      ...claim,
      error: errorText(error),
      runAt: resumeAt,
      durationMs,
    }),
  );
  if (!landed) return lost(a, 'nack');
  o.logger.log('warn', 'jobs.attempt.failed', {
    ...logFields(a),
    outcome: 'retried',
    code: errorCodeOf(error),
    error: errorText(error),
    retryInMs: delay,
  });
  return finish(a, 'retried', { error, resumeAt });
}

/** A cap is full: hand the claim straight back, attempt uncounted, due again after one poll. */
export async function handBack(a: Attempt, key: string): Promise<JobExecution> {
  const resumeAt = a.o.clock.now() + (a.o.handBackMs ?? 250);
  const landed = await answered(a, 'hand-back', () =>
    a.o.driver.nack(a.claimed.id, { ...a.claim, error: null, uncounted: true, runAt: resumeAt }),
  );
  if (!landed) return lost(a, 'hand-back');
  a.o.logger.log('debug', 'jobs.concurrency.wait', { ...logFields(a), key });
  return finish(a, 'deferred', { resumeAt });
}

/**
 * `whenBusy: 'fail'` over a busy key: settled failed, the body never ran, nothing retries it. The claim's attempt is
 * handed back (`uncounted`): the row shows the attempts its body actually had, so a requeue or an operator reading
 * `attempt` never sees a run that did not happen.
 */
export async function refuse(a: Attempt, key: string, input: unknown): Promise<JobExecution> {
  const { o, claimed } = a;
  const error = new JobKeyBusyError(claimed.name, key);
  const landed = await answered(a, 'refuse', () =>
    o.driver.nack(claimed.id, {
      ...a.claim,
      error: errorText(error),
      fail: true,
      uncounted: true,
    }),
  );
  if (!landed) return lost(a, 'refuse');
  o.logger.log('warn', 'jobs.attempt.refused', { ...logFields(a), key, code: error.code });
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
        ctx: a.ctx,
      },
      a.ctx,
      o.logger,
    );
  }
  return finish(a, 'refused', { error });
}
