import { JobKeyBusyError } from '../errors/operator-errors';
import { errorCodeOf } from '../errors/jobs-error';
import { AttemptAck } from './attempt-ack';
import { planFailure, type RetryPlan, type StopPlan } from './failure-plan';
import { notifyOnSettled } from './on-settled';
import type { JobExecution, JobOutcome } from './outcome';
import { renderError, renderFailure } from './render-error';
import { withErrorStack } from '../util/log-format';

/**
 * One attempt's settles past its ack — park, interrupt, retry or stop, hand back, refuse — each fenced on the claim,
 * sent again if the driver throws, and counted once it lands ({@link AttemptAck}: the ack and what they share). The
 * base of `Attempt`, which runs the body and picks the settle: a settle is a method, so an attempt that completes
 * allocates none of the failure paths' closures.
 */
export class AttemptSettle extends AttemptAck {
  /** A step suspended the run: parked until `resumeAt`, the attempt uncounted. */
  protected async park(resumeAt: number): Promise<JobExecution> {
    const landed = await this.answered('park', () =>
      this.o.driver.nack(this.claimed.id, {
        ...this.claim,
        kind: 'park',
        error: null,
        runAt: resumeAt,
        durationMs: this.o.clock.now() - this.started,
      }),
    );
    return landed ? this.finish('suspended', { resumeAt }) : this.lost('park');
  }

  /** A drain aborted the run and its body unwound: handed back now, the attempt uncounted. */
  protected async interrupt(reason: Error): Promise<JobExecution> {
    const landed = await this.answered('interrupt', () =>
      this.o.driver.nack(this.claimed.id, {
        ...this.claim,
        kind: 'handBack',
        error: renderError(reason),
        durationMs: this.o.clock.now() - this.started,
      }),
    );
    if (!landed) return this.lost('interrupt');
    this.o.logger.log('info', 'jobs.attempt.interrupted', {
      ...this.logFields(),
      reason: reason.message,
    });
    return this.finish('interrupted', { error: reason });
  }

  /**
   * Settles a failed attempt as {@link planFailure} says: retried after its delay, or stopped (dead-lettered or
   * dropped, then onSettled). `input` is the parsed input, undefined when the stored payload does not parse.
   */
  protected async fail(error: unknown, input: unknown): Promise<JobExecution> {
    const durationMs = this.o.clock.now() - this.started;
    const plan = planFailure(error, this.claimed, this.retry, this.final, this.o.random);
    return plan.kind === 'stop'
      ? this.stop(error, input, plan, durationMs)
      : this.retryAfter(error, plan, durationMs);
  }

  /** A failure with no retry left or allowed: dead-lettered or dropped, logged, then onSettled. */
  private async stop(
    error: unknown,
    input: unknown,
    plan: StopPlan,
    durationMs: number,
  ): Promise<JobExecution> {
    const { o, claimed, claim } = this;
    const { deadLetter, text, code, stop } = plan;
    const landed = await this.answered('nack', () =>
      o.driver.nack(claimed.id, {
        ...claim,
        kind: deadLetter ? 'dead' : 'fail',
        error: text,
        durationMs,
      }),
    );
    if (!landed) return this.lost('nack');
    const outcome: JobOutcome = deadLetter ? 'dead-lettered' : 'dropped';
    o.logger.log(
      'error',
      'jobs.attempt.failed',
      withErrorStack(
        { ...this.logFields(), stop, outcome, code, error: renderError(error) },
        error,
      ),
    );
    if (this.job !== undefined) {
      const { ctx } = this;
      await notifyOnSettled(
        this.job.handle,
        { outcome, jobId: claimed.id, runId: claimed.runId, input, error: text, code, ctx },
        ctx,
        o.logger,
      );
    }
    return this.finish(outcome, { error, stopReason: stop });
  }

  /** A failure with attempts left: due again after the plan's delay, logged as a warning. */
  private async retryAfter(
    error: unknown,
    plan: RetryPlan,
    durationMs: number,
  ): Promise<JobExecution> {
    const { o, claimed, claim } = this;
    const resumeAt = o.clock.now() + plan.delayMs;
    const landed = await this.answered('nack', () =>
      o.driver.nack(claimed.id, {
        ...claim,
        kind: 'retry',
        error: renderFailure(error),
        runAt: resumeAt,
        durationMs,
      }),
    );
    if (!landed) return this.lost('nack');
    o.logger.log(
      'warn',
      'jobs.attempt.failed',
      withErrorStack(
        {
          ...this.logFields(),
          outcome: 'retried',
          code: errorCodeOf(error),
          error: renderError(error),
          retryInMs: plan.delayMs,
        },
        error,
      ),
    );
    return this.finish('retried', { error, resumeAt });
  }

  /** A cap is full: hand the claim straight back, attempt uncounted, due again after one poll. */
  protected async handBack(key: string): Promise<JobExecution> {
    const resumeAt = this.o.clock.now() + (this.o.handBackMs ?? 250);
    const landed = await this.answered('hand-back', () =>
      this.o.driver.nack(this.claimed.id, {
        ...this.claim,
        kind: 'handBack',
        error: null,
        runAt: resumeAt,
      }),
    );
    if (!landed) return this.lost('hand-back');
    this.o.logger.log('debug', 'jobs.concurrency.wait', { ...this.logFields(), key });
    return this.finish('deferred', { resumeAt });
  }

  /**
   * `whenBusy: 'fail'` over a busy key: settled failed, the body never ran, nothing retries it. The claim's attempt is
   * handed back (`uncounted`): the row shows the attempts its body actually had, so a requeue or an operator reading
   * `attempt` never sees a run that did not happen.
   */
  protected async refuse(key: string, input: unknown): Promise<JobExecution> {
    const { o, claimed } = this;
    const error = new JobKeyBusyError(claimed.name, key);
    const landed = await this.answered('refuse', () =>
      o.driver.nack(claimed.id, {
        ...this.claim,
        kind: 'fail',
        error: renderError(error),
        uncounted: true,
      }),
    );
    if (!landed) return this.lost('refuse');
    o.logger.log('warn', 'jobs.attempt.refused', { ...this.logFields(), key, code: error.code });
    if (this.job !== undefined) {
      const { ctx } = this;
      await notifyOnSettled(
        this.job.handle,
        {
          outcome: 'refused',
          jobId: claimed.id,
          runId: claimed.runId,
          input,
          error: renderError(error),
          code: error.code,
          ctx,
        },
        ctx,
        o.logger,
      );
    }
    return this.finish('refused', { error });
  }
}
