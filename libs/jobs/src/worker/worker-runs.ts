import type { AckManyItem, JobDriver } from '../driver/job-driver';
import type { ClaimedJob } from '../driver/job-row';
import { JobDrainedError } from '../errors/runtime-errors';
import type { EventBus } from '../events/event-bus';
import type { JobRegistry, RegisteredJob } from '../registry/job-registry';
import type { AttemptEnv } from '../runtime/attempt-options';
import type { JobMetrics } from '../runtime/metrics';
import type { JobExecution } from '../runtime/outcome';
import type { Clock } from '../util/clock';
import type { JobsLogger } from '../util/logger';
import {
  ACK_BATCH_MAX,
  ACK_BATCHES_IN_FLIGHT,
  type AckBatcher,
  type AckReceiver,
} from './ack-batcher';
import type { DueTimers } from './due-timers';
import type { HandBacks } from './hand-backs';
import type { Heartbeats } from './heartbeat';
import type { PrefetchBuffer } from './prefetch';
import type { SlotLedger } from './slot-ledger';
import { countOutcome, type MutableWorkerStats } from './worker-stats';
import { RunsInFlight } from './runs-in-flight';
import { WorkerRun, type RunAcks } from './worker-run';

/** Acks queued past this many keep their slot until they land, so a slow database cannot pile up settles. */
const ACK_BACKLOG_MAX = ACK_BATCH_MAX * ACK_BATCHES_IN_FLIGHT;

/** Claim order within a queue: priority, run time, then id (UUIDv7 text sorts in mint order). */
const claimOrder = (a: ClaimedJob, b: ClaimedJob): number =>
  a.priority - b.priority || a.runAt - b.runAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** What {@link WorkerRuns} works with: the worker's settings and its other parts. */
export interface WorkerRunsOptions {
  readonly workerId: string;
  readonly driver: JobDriver;
  readonly registry: JobRegistry;
  readonly clock: Clock;
  readonly logger: JobsLogger;
  readonly events: EventBus;
  readonly metrics: JobMetrics | undefined;
  readonly visibilityTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  /** How long a row a cap refused waits before it is due again: one poll. */
  readonly handBackMs: number;
  readonly ledger: SlotLedger;
  readonly held: PrefetchBuffer;
  readonly beats: Heartbeats;
  readonly acks: AckBatcher;
  readonly handBacks: HandBacks;
  readonly timers: DueTimers;
  readonly stats: MutableWorkerStats;
  /** Whether the worker still claims (held rows start only then). */
  readonly running: () => boolean;
  /** A slot came free: the pass loop claims for it when a claim could find anything (`PassLoop.freed`). */
  readonly freed: () => void;
}

/**
 * The runs a worker holds: places a claim's rows (held, then started while slots are free), starts each as an
 * attempt under its heartbeat, and when one ends (or its ack is sent) gives its slot to the next held row.
 */
export class WorkerRuns implements RunAcks {
  /** The runs in flight. */
  readonly runs = new RunsInFlight<WorkerRun>();
  /** The drain's signal once a drain began; a manual stop sets none, because it aborts nothing. */
  private drainSignal: string | undefined;
  private readonly jobs = new Map<string, RegisteredJob>();
  /** What every run's attempt reads: made once per worker. */
  private readonly env: AttemptEnv;
  /** The queue {@link WorkerRuns.startHeld} is starting runs of, while it is. */
  private starting: string | undefined = undefined;
  /** Other queues whose held rows were asked to start meanwhile. */
  private readonly startNext: string[] = [];
  /** Set once the stop's wait ended ({@link WorkerRuns.close}): rows placed from here are handed back. */
  private closed = false;

  constructor(private readonly o: WorkerRunsOptions) {
    this.env = {
      driver: o.driver,
      clock: o.clock,
      logger: o.logger,
      events: o.events,
      metrics: o.metrics,
      visibilityTimeoutMs: o.visibilityTimeoutMs,
      heartbeatIntervalMs: o.heartbeatIntervalMs,
      handBackMs: o.handBackMs,
    };
  }

  /**
   * Places a claim's rows, in claim order per queue: held, then started while slots are free. While a manual stop
   * waits, what fits the free slots starts and the rest goes straight back; a draining or closed worker starts none:
   * every row goes back unstarted, uncounted (a body started only to be aborted would run its first part during the
   * drain, and one that missed the abort would hold the drain to its deadline).
   */
  place(claimed: readonly ClaimedJob[]): void {
    const { o } = this;
    if (this.closed || this.draining) {
      o.handBacks.release(claimed);
      return;
    }
    if (o.running()) {
      // a lone row (a hand-off's) that nothing held is ahead of, with a slot free: started without being held first
      const lone = claimed.length === 1 ? claimed[0] : undefined;
      if (
        lone !== undefined &&
        this.starting === undefined &&
        o.held.held(lone.queue) === 0 &&
        o.ledger.free(lone.queue) > 0
      ) {
        this.startHeld(lone.queue, lone);
        return;
      }
    }
    const rows = [...claimed].sort(claimOrder);
    if (o.running()) {
      o.held.hold(rows, o.clock.now());
      for (const queue of new Set(rows.map((row) => row.queue))) this.startHeld(queue);
      return;
    }
    const rest: ClaimedJob[] = [];
    for (const row of rows) {
      if (o.ledger.free(row.queue) > 0) this.start(row);
      else rest.push(row);
    }
    o.handBacks.release(rest);
  }

  /**
   * The stop's wait ended (its work settled, or its deadline passed): no row placed from here starts. A claim still on
   * the wire past the deadline, or a hand-off, gets its rows handed back uncounted rather than run — and renewed — by a
   * worker that stopped.
   */
  close(): void {
    this.closed = true;
  }

  /** Whether a drain began ({@link WorkerRuns.drain}): a manual stop begins none. */
  get draining(): boolean {
    return this.drainSignal !== undefined;
  }

  /** Aborts every run with `X_DRAINING`; what a claim still on the wire answers from here goes back unstarted. */
  drain(signal: string): void {
    this.drainSignal = signal;
    for (const run of this.runs.values())
      run.abort.abort(new JobDrainedError(this.o.workerId, signal));
  }

  /**
   * Starts held rows of `queue` while it has free slots, after `first` (a lone row {@link WorkerRuns.place} found a
   * free slot for, nothing held ahead of it). A run whose input parses synchronously runs its body at once, and a
   * body that answers at once acks (giving its slot back) before {@link WorkerRuns.start} returns: the queues
   * asked for meanwhile are started by the loop already under way, after it, rather than from inside the run — a
   * buffer of held no-op runs is a loop, not a recursion as deep as the buffer.
   */
  private startHeld(queue: string, first?: ClaimedJob): void {
    if (this.starting !== undefined) {
      if (queue !== this.starting && !this.startNext.includes(queue)) this.startNext.push(queue);
      return;
    }
    try {
      for (
        let next: string | undefined = queue;
        next !== undefined;
        next = this.startNext.shift()
      ) {
        this.starting = next;
        if (first !== undefined) {
          const row = first;
          first = undefined;
          this.start(row);
        }
        this.startHeldOf(next);
      }
    } finally {
      this.starting = undefined;
      this.startNext.length = 0;
    }
  }

  /** Starts held rows of `queue` while it has free slots; stale ones go back to the queue. */
  private startHeldOf(queue: string): void {
    const { o } = this;
    const stale: ClaimedJob[] = [];
    while (o.running() && o.ledger.free(queue) > 0) {
      const row = o.held.next(queue, o.clock.now(), stale);
      if (row === undefined) break;
      this.start(row);
    }
    o.handBacks.release(stale);
  }

  private start(claimed: ClaimedJob): void {
    const { o } = this;
    o.stats.claimed++;
    const verdict = o.ledger.take(claimed);
    if (verdict !== 'ok') {
      // a per-process cap refused the row: straight back, uncounted, due after one poll
      o.stats.deferred++;
      o.handBacks.defer(claimed, verdict, o.clock.now() + o.handBackMs, (at) =>
        o.timers.dueAtTime(at),
      );
      return;
    }
    // The run owns its abort; its heartbeat (a lost lease) and a drain abort it through `run.abort`.
    const run = new WorkerRun(this.env, claimed, this.jobOf(claimed.name), this);
    // A row a claim on the wire hands back after the drain began is aborted like the rest; after a manual stop() it runs.
    if (this.drainSignal !== undefined)
      run.abort.abort(new JobDrainedError(o.workerId, this.drainSignal));
    this.runs.add(run);
    let running: Promise<JobExecution>;
    try {
      running = run.run();
    } catch (error) {
      // the attempt runs synchronously up to its first wait: a throw there ends the run like a rejection
      running = Promise.reject(error);
    }
    // the lease is renewed from here: the body is under way, the beat due as if made before it
    run.beatFrom(o.beats);
    run.done = running.then(
      (execution) => {
        try {
          run.deferred = execution.outcome === 'deferred';
          this.record(execution);
        } finally {
          this.ended(run);
        }
      },
      (error: unknown) => {
        o.logger.log('error', 'jobs.worker.execute-failed', {
          jobId: claimed.id,
          error: error instanceof Error ? error.message : String(error),
        });
        this.ended(run);
      },
    );
  }

  /** The body completed: its ack rides the next batch, and its slot goes to the next run while the ack is out. */
  ackRun(run: WorkerRun, item: AckManyItem, to: AckReceiver): void {
    const { acks } = this.o;
    acks.send(item, to);
    if (acks.pending() <= ACK_BACKLOG_MAX) {
      this.freeSlot(run);
      this.o.freed();
    }
  }

  /** The registered job of a name, looked up once per worker (a registry lookup builds a fresh entry each time). */
  private jobOf(name: string): RegisteredJob | undefined {
    let job = this.jobs.get(name);
    if (job === undefined) {
      job = this.o.registry.get(name);
      if (job !== undefined) this.jobs.set(name, job);
    }
    return job;
  }

  private record(execution: JobExecution): void {
    countOutcome(this.o.stats, execution);
    if (execution.resumeAt !== undefined) this.o.timers.dueAtTime(execution.resumeAt);
  }

  /** Gives a run's slot back (once): to a held row of its queue at once. */
  private freeSlot(run: WorkerRun): void {
    if (run.freed) return;
    run.freed = true;
    this.o.ledger.give(run.claimed);
    this.o.held.completed(run.claimed.queue);
    this.startHeld(run.claimed.queue);
  }

  /** The run is over (one `then` for both outcomes: a `finally` would cost two more promises per run). */
  private ended(run: WorkerRun): void {
    run.beat.stop();
    this.runs.delete(run);
    if (run.freed) return;
    this.freeSlot(run);
    // A slot came free: refill it at once — unless a cap handed this run back, where an immediate pass would
    // only claim the same capped rows again; the due timer brings it back after one poll.
    if (!run.deferred) this.o.freed();
  }
}
