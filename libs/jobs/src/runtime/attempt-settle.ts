import type { JobRunContext } from '../declare/run-args';
import type { ResolvedRetryPolicy } from '../declare/retry-policy';
import type { AckManyItem, AckOptions } from '../driver/job-driver';
import type { ClaimedJob, ClaimRef } from '../driver/job-row';
import { JobKeyBusyError } from '../errors/operator-errors';
import { errorCodeOf } from '../errors/jobs-error';
import type { RegisteredJob } from '../registry/job-registry';
import type { AttemptEnv } from './attempt-options';
import { isFinal, planFailure } from './failure-plan';
import { notifyOnSettled } from './on-settled';
import { jobsTotalOutcome, type JobExecution, type JobOutcome } from './outcome';
import { renderError, renderFailure } from './render-error';
import { resendSettle } from './settle-retry';

/** A completed attempt's ack on its way, and what its answer settles. */
interface Completing {
  readonly item: AckManyItem;
  readonly result: unknown;
  readonly input: unknown;
  readonly resolve: (execution: JobExecution | Promise<JobExecution>) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * One attempt's settles — ack, park, interrupt, retry or stop, hand back, refuse — each fenced on the claim, sent again
 * if the driver throws ({@link resendSettle}), and counted once it lands. The base of `Attempt`, which runs the body
 * and picks the settle: a settle is a method, so an attempt that completes allocates none of the failure paths'
 * closures. A runner adapts it through methods rather than callbacks made per run: {@link AttemptSettle.sendAck} (or
 * {@link AttemptSettle.deliverAck}, for a runner that batches its acks) and {@link AttemptSettle.settled}.
 */
export class AttemptSettle {
  readonly started: number;
  /** Whether this is the job's last attempt: a failure stops it for good. */
  readonly final: boolean;
  readonly retry: ResolvedRetryPolicy | undefined;
  #claim: ClaimRef | undefined;
  /** A completed attempt's ack on its way: what its answer settles. */
  #completing: Completing | undefined = undefined;

  constructor(
    /** What every attempt of the runner shares. */
    readonly o: AttemptEnv,
    readonly claimed: ClaimedJob,
    /** The registered job for the row's name; undefined when this process does not know it. */
    readonly job: RegisteredJob | undefined,
    /** The context the body and onSettled see: replaced once the input names a tenant. */
    protected ctx: JobRunContext,
  ) {
    this.started = o.clock.now();
    this.retry = job?.handle.retry;
    this.final = isFinal(claimed, this.retry);
  }

  /** What every settle is fenced on (made on first use: a completed run's ack reads the claim's fields itself). */
  get claim(): ClaimRef {
    return (this.#claim ??= { workerId: this.claimed.workerId, claim: this.claimed.claim });
  }

  /** Sends a completed attempt's ack (the driver's `ack`); also what an ack the driver threw on is sent again by. */
  protected sendAck(jobId: string, ack: AckOptions): Promise<boolean> {
    return this.o.driver.ack(jobId, ack);
  }

  /**
   * Whether a completed attempt's ack goes through {@link AttemptSettle.deliverAck} — a runner's batch that answers the
   * attempt itself ({@link AttemptSettle.acked}) — rather than through {@link AttemptSettle.sendAck}'s promise.
   */
  protected get acksDelivered(): boolean {
    return false;
  }

  /**
   * Hands a completed attempt's ack to the runner's batch, which tells the attempt its answer once:
   * {@link AttemptSettle.acked} or {@link AttemptSettle.ackFailed}. Used when {@link AttemptSettle.acksDelivered}.
   */
  protected deliverAck(item: AckManyItem): void {
    this.sendAck(item.jobId, item).then(
      (landed) => this.acked(landed),
      (error: unknown) => this.ackFailed(error),
    );
  }

  /**
   * Told once the attempt's settle was answered, before onSettled runs: from there the run holds no lease (a worker
   * stops renewing it). Nothing by default.
   */
  protected settled(_landed: boolean): void {}

  /** The fields every log line of an attempt carries (a text line prints `attempt=2/5`). */
  logFields(): Record<string, unknown> {
    const c = this.claimed;
    return {
      job: c.name,
      jobId: c.id,
      runId: c.runId,
      attempt: c.attempt,
      maxAttempts: c.maxAttempts,
      queue: c.queue,
    };
  }

  /**
   * The body returned: ack, then onSettled. Not `async`: every completed run takes this path. The ack goes through
   * {@link AttemptSettle.sendAck} chained, or — for a runner that batches its acks ({@link AttemptSettle.acksDelivered})
   * — through {@link AttemptSettle.deliverAck}, whose answer comes back to {@link AttemptSettle.acked}: ONE promise per
   * run, the attempt's answer, however the ack travels.
   */
  protected complete(result: unknown, input: unknown): Promise<JobExecution> {
    const { o, claimed } = this;
    const item: AckManyItem = {
      jobId: claimed.id,
      workerId: claimed.workerId,
      claim: claimed.claim,
      durationMs: o.clock.now() - this.started,
    };
    if (this.acksDelivered)
      return new Promise<JobExecution>((resolve, reject) => {
        this.#completing = { item, result, input, resolve, reject };
        try {
          this.deliverAck(item);
        } catch (error) {
          this.ackFailed(error);
        }
      });
    let sent: Promise<boolean>;
    try {
      sent = this.sendAck(claimed.id, item);
    } catch (error) {
      sent = Promise.reject(error);
    }
    return sent.then(
      (landed) => this.#acked(landed, result, input),
      (error: unknown) =>
        resendSettle(o, claimed, error, 'ack', () => this.sendAck(claimed.id, item)).then(
          (landed) => this.#acked(landed, result, input),
        ),
    );
  }

  /** The completed attempt's ack was answered: whether its fenced settle landed. */
  acked(landed: boolean): void {
    const c = this.#completing;
    if (c === undefined) return;
    this.#completing = undefined;
    try {
      c.resolve(this.#acked(landed, c.result, c.input));
    } catch (error) {
      c.reject(error);
    }
  }

  /** The driver threw on the completed attempt's ack: sent again while the lease may still be this run's. */
  ackFailed(error: unknown): void {
    const c = this.#completing;
    if (c === undefined) return;
    this.#completing = undefined;
    const { o, claimed } = this;
    c.resolve(
      resendSettle(o, claimed, error, 'ack', () => this.sendAck(claimed.id, c.item)).then(
        (landed) => this.#acked(landed, c.result, c.input),
      ),
    );
  }

  /** The ack was answered: a completed run (onSettled told, when the job has one), or a lost one. */
  #acked(landed: boolean, result: unknown, input: unknown): JobExecution | Promise<JobExecution> {
    const { o, claimed, ctx, job } = this;
    this.settled(landed);
    if (!landed) return this.lost('ack');
    if (job === undefined || job.handle.hasOnSettled === false)
      return this.finish('completed', { result });
    return notifyOnSettled(
      job.handle,
      { outcome: 'completed', jobId: claimed.id, runId: claimed.runId, input, result, ctx },
      ctx,
      o.logger,
    ).then(() => this.finish('completed', { result }));
  }

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
    const { o, claimed, claim } = this;
    const durationMs = o.clock.now() - this.started;
    const plan = planFailure(error, claimed, this.retry, this.final, o.random);
    if (plan.kind === 'stop') {
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
      o.logger.log('error', 'jobs.attempt.failed', {
        ...this.logFields(),
        stop,
        outcome,
        code,
        error: renderError(error),
      });
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
    o.logger.log('warn', 'jobs.attempt.failed', {
      ...this.logFields(),
      outcome: 'retried',
      code: errorCodeOf(error),
      error: renderError(error),
      retryInMs: plan.delayMs,
    });
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

  /** A settle that did not land: the claim that holds the row now decides. */
  protected lost(why: string): JobExecution {
    this.o.logger.log('warn', 'jobs.settle.unowned', { ...this.logFields(), why });
    return this.finish('lost');
  }

  /**
   * Sends a settle — again, if the driver throws on it ({@link resendSettle}) — and tells the caller it was answered
   * (the run holds no lease from here).
   */
  protected async answered(settle: string, send: () => Promise<boolean>): Promise<boolean> {
    let landed: boolean;
    try {
      landed = await send();
    } catch (error) {
      landed = await resendSettle(this.o, this.claimed, error, settle, send);
    }
    this.settled(landed);
    return landed;
  }

  /** The attempt's execution record, counted in `jobs_total`. */
  protected finish(outcome: JobOutcome, extra?: Partial<JobExecution>): JobExecution {
    const { o, claimed } = this;
    const total = jobsTotalOutcome(outcome);
    if (total !== undefined) o.metrics?.jobsTotal(claimed.queue, total);
    const durationMs = o.clock.now() - this.started;
    o.metrics?.jobDuration?.(claimed.queue, durationMs / 1_000);
    return extra === undefined
      ? { jobId: claimed.id, outcome, durationMs }
      : { jobId: claimed.id, outcome, durationMs, ...extra };
  }
}
