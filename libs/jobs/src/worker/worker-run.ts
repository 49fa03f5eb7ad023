import type { AckManyItem, AckOptions } from '../driver/job-driver';
import type { AckReceiver } from './ack-batcher';
import type { ClaimedJob } from '../driver/job-row';
import type { RegisteredJob } from '../registry/job-registry';
import { Attempt } from '../runtime/attempt';
import type { AttemptEnv } from '../runtime/attempt-options';
import { RunAbort } from '../runtime/run-abort';
import type { DrainedRun } from './drain-work';
import type { Heartbeat, Heartbeats } from './heartbeat';

/** A run's heartbeat before it started: nothing to stop. */
const NOT_BEATING: Heartbeat = { stop: () => undefined };

/** Where a worker's run sends its ack: the worker's batch, which also gives the run's slot on. */
export interface RunAcks {
  /** Sends `run`'s ack with the next batch; its answer goes to `to`. */
  ackRun(run: WorkerRun, item: AckManyItem, to: AckReceiver): void;
}

/**
 * One run a worker holds: the attempt itself, with what the worker keeps of it — its heartbeat, whether its slot was
 * given back, whether a cap handed it back, and its end. One object per run: the worker's settings come from the
 * worker's shared {@link AttemptEnv}, and the attempt's two hooks are methods here rather than callbacks made per run.
 */
export class WorkerRun extends Attempt implements DrainedRun {
  /** The run's end, set once the attempt is under way. */
  done: Promise<void> | undefined = undefined;
  /**
   * Renews the run's lease (a lost one aborts the run) until the settle is answered or the run ends: started by
   * {@link WorkerRun.beatFrom} once the body is under way, none before.
   */
  beat: Heartbeat = NOT_BEATING;
  /** Whether the settle was answered: from there no heartbeat starts. */
  #settled = false;
  /** Whether its slot was given back. */
  freed = false;
  /** Whether a cap handed it back. */
  deferred = false;

  constructor(
    env: AttemptEnv,
    claimed: ClaimedJob,
    job: RegisteredJob | undefined,
    private readonly acks: RunAcks,
  ) {
    super(env, claimed, job, new RunAbort());
  }

  /**
   * Starts renewing the run's lease, due one interval after the attempt started — what a beat started before the body
   * would be due at: called once {@link Attempt.run} returned (the body started, or the attempt ended before it), so
   * a pickup's body does not wait for the beat to be made and its timer armed. Nothing once the settle was answered.
   * A run started inside another's `run()` (a body that answered at once gave its slot on) beats ahead of it, though
   * due the same ms or one later: that one is renewed at most that late.
   */
  beatFrom(beats: Heartbeats): void {
    if (!this.#settled) this.beat = beats.start(this.claimed, this.abort, this.started);
  }

  /** A completed run's ack is answered by the worker's batch to the run itself ({@link WorkerRun.deliverAck}). */
  protected override get acksDelivered(): boolean {
    return true;
  }

  /** The body completed: its ack rides the worker's next batch, and its slot goes to the next run meanwhile. */
  protected override deliverAck(item: AckManyItem): void {
    this.acks.ackRun(this, item, this);
  }

  /** An ack the driver threw on, sent again: through the batch too. */
  protected override sendAck(jobId: string, ack: AckOptions): Promise<boolean> {
    return new Promise<boolean>((acked, ackFailed) =>
      this.acks.ackRun(this, { ...ack, jobId }, { acked, ackFailed }),
    );
  }

  /** Once the settle is answered the row is no longer this run's: renewing it would read as a lost lease. */
  protected override settled(): void {
    this.#settled = true;
    this.beat.stop();
  }
}
