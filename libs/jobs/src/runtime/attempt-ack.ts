import type { JobRunContext } from '../declare/run-args';
import type { ResolvedRetryPolicy } from '../declare/retry-policy';
import type { AckManyItem, AckOptions } from '../driver/job-driver';
import type { ClaimedJob, ClaimRef } from '../driver/job-row';
import type { RegisteredJob } from '../registry/job-registry';
import type { AttemptEnv } from './attempt-options';
import { isFinal } from './failure-plan';
import { notifyOnSettled } from './on-settled';
import { jobsTotalOutcome, type JobExecution, type JobOutcome } from './outcome';
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
 * A completed attempt's ack and what every settle shares: the claim it is fenced on, the lost and the counted ends, a
 * settle sent again if the driver throws ({@link resendSettle}). The base of `AttemptSettle` (the other settles), so
 * the path every completed run takes reads alone. A runner adapts it through methods rather than callbacks made per
 * run: {@link AttemptAck.sendAck} (or {@link AttemptAck.deliverAck}, for a runner that batches its acks) and
 * {@link AttemptAck.settled}.
 */
export class AttemptAck {
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
   * Whether a completed attempt's ack goes through {@link AttemptAck.deliverAck} — a runner's batch that answers the
   * attempt itself ({@link AttemptAck.acked}) — rather than through {@link AttemptAck.sendAck}'s promise.
   */
  protected get acksDelivered(): boolean {
    return false;
  }

  /**
   * Hands a completed attempt's ack to the runner's batch, which tells the attempt its answer once:
   * {@link AttemptAck.acked} or {@link AttemptAck.ackFailed}. Used when {@link AttemptAck.acksDelivered}.
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
   * {@link AttemptAck.sendAck} chained, or — for a runner that batches its acks ({@link AttemptAck.acksDelivered})
   * — through {@link AttemptAck.deliverAck}, whose answer comes back to {@link AttemptAck.acked}: ONE promise per
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
