import type { JobDriver } from '../driver/job-driver';
import type { ClaimedJob } from '../driver/job-row';
import { LeaseLostError } from '../errors/runtime-errors';
import type { JobMetrics } from '../runtime/metrics';
import type { RunAbort } from '../runtime/run-abort';
import type { Clock, TimerHandle } from '../util/clock';
import type { JobsLogger } from '../util/logger';

/** What the heartbeats renew and whom they tell. */
export interface HeartbeatOptions {
  readonly driver: JobDriver;
  readonly clock: Clock;
  readonly logger: JobsLogger;
  readonly metrics?: JobMetrics;
  readonly visibilityTimeoutMs: number;
  readonly intervalMs: number;
  /** Told once per lost lease, before the run is aborted with it. */
  readonly onLost?: (error: LeaseLostError) => void;
}

/** One run's heartbeat. */
export interface Heartbeat {
  /** Stops renewing: terminal for the renewal already on the wire too. */
  stop(): void;
}

/** Renews the leases of a worker's held runs. */
export interface Heartbeats {
  /**
   * Starts renewing `claimed`'s lease every interval from `now` (the clock's now when not given: a run passes the time
   * its attempt started, read once); a lost lease aborts `run`.
   */
  start(claimed: ClaimedJob, run: RunAbort, now?: number): Heartbeat;
  /** Runs being renewed. */
  size(): number;
}

class Beat implements Heartbeat {
  /** When this beat renews next. */
  due: number;
  lastLanded: number;
  inFlight = false;
  stopped = false;

  constructor(
    readonly owner: HeartbeatSet,
    readonly claimed: ClaimedJob,
    readonly run: RunAbort,
    now: number,
  ) {
    this.due = now;
    this.lastLanded = now;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.owner.remove(this);
  }
}

/**
 * Every held run's lease renewal on ONE timer, rather than a timer per run: a worker draining thousands of short runs
 * a second would otherwise arm and cancel a timer for each. Runs are kept in due order (a run is due `intervalMs`
 * after it started or last renewed, so appending keeps the order), and the timer is armed for the first.
 *
 * Per run, as before: a renewal every `intervalMs`; one that fails while the window still has room is
 * `jobs.heartbeat.failed` (warn); a whole window with none landing — or a renewal the row refused (re-delivered or
 * cancelled) — is `jobs.lease.lost` (error) plus `job_leases_lost_total`, and the run is aborted with
 * `LeaseLostError`. A stopped beat is terminal for the renewal already on the wire too, so a job that finished never
 * reports a lost lease.
 */
class HeartbeatSet implements Heartbeats {
  readonly #beats = new Set<Beat>();
  #timer: { at: number; handle: TimerHandle } | undefined;

  constructor(readonly o: HeartbeatOptions) {}

  start(claimed: ClaimedJob, run: RunAbort, now = this.o.clock.now()): Heartbeat {
    const beat = new Beat(this, claimed, run, now);
    beat.due += this.o.intervalMs;
    this.#beats.add(beat);
    if (this.#timer === undefined) this.#arm(beat.due);
    return beat;
  }

  size(): number {
    return this.#beats.size;
  }

  remove(beat: Beat): void {
    this.#beats.delete(beat);
    if (this.#beats.size === 0 && this.#timer !== undefined) {
      this.#timer.handle.cancel();
      this.#timer = undefined;
    }
  }

  #arm(at: number): void {
    const timer = {
      at,
      handle: this.o.clock.setTimeout(
        () => {
          if (this.#timer === timer) this.#timer = undefined;
          this.#sweep();
        },
        Math.max(0, at - this.o.clock.now()),
      ),
    };
    this.#timer = timer;
  }

  #sweep(): void {
    const now = this.o.clock.now();
    for (const beat of this.#beats) {
      if (beat.due > now) break;
      this.#tick(beat, now);
    }
    const first = this.#beats.values().next();
    if (!first.done && this.#timer === undefined) this.#arm(first.value.due);
  }

  #lose(beat: Beat, why: string): void {
    if (beat.stopped) return;
    beat.stop();
    const c = beat.claimed;
    this.o.logger.log('error', 'jobs.lease.lost', {
      job: c.name,
      jobId: c.id,
      queue: c.queue,
      attempt: c.attempt,
      why,
    });
    this.o.metrics?.leaseLost(c.queue);
    const error = new LeaseLostError(c.id);
    this.o.onLost?.(error);
    beat.run.abort(error);
  }

  #tick(beat: Beat, now: number): void {
    // Measured from the last renewal that landed, so a heartbeat that hangs is caught like one that rejects.
    if (now - beat.lastLanded >= this.o.visibilityTimeoutMs)
      return this.#lose(beat, 'window-passed');
    // re-appended: due order is kept, since every beat renewed now is due after every beat already queued
    this.#beats.delete(beat);
    beat.due = now + this.o.intervalMs;
    this.#beats.add(beat);
    if (beat.inFlight) return;
    beat.inFlight = true;
    const c = beat.claimed;
    this.o.driver
      .heartbeat(c.id, { workerId: c.workerId, claim: c.claim }, this.o.visibilityTimeoutMs)
      .then(
        (landed) => {
          beat.inFlight = false;
          if (beat.stopped) return;
          if (landed) beat.lastLanded = this.o.clock.now();
          else this.#lose(beat, 'row-moved-on');
        },
        (error: unknown) => {
          beat.inFlight = false;
          if (beat.stopped) return;
          this.o.logger.log('warn', 'jobs.heartbeat.failed', {
            job: c.name,
            jobId: c.id,
            queue: c.queue,
            attempt: c.attempt,
            error: error instanceof Error ? error.message : String(error),
          });
        },
      );
  }
}

/** The heartbeats of one worker. */
export function heartbeats(options: HeartbeatOptions): Heartbeats {
  return new HeartbeatSet(options);
}
