import { hostname } from 'node:os';
import type { ClaimPresence, WorkerBeat, WorkerRegistry } from '../driver/workers';
import type { Clock, TimerHandle } from '../util/clock';
import type { JobsLogger } from '../util/logger';

/** What a worker's registry heartbeat writes and how often. */
export interface WorkerPresenceOptions {
  readonly registry: WorkerRegistry;
  readonly clock: Clock;
  readonly logger: JobsLogger;
  readonly workerId: string;
  /** The queues served, each with its concurrency. */
  readonly slots: () => ReadonlyMap<string, number>;
  /** Ids of the runs the worker holds now. */
  readonly inFlight: () => Iterable<string>;
  readonly intervalMs: number;
  readonly visibilityTimeoutMs: number;
}

/**
 * The worker's row in the registry (`workers()`): one write per heartbeat interval for the whole worker, never per
 * job, so a worker draining thousands of runs a second still writes three times per visibility timeout. A beat that
 * fails is logged (`jobs.worker.beat-failed`, warn) and the next one tries again; the row simply expires one
 * visibility timeout after the last beat that landed. `stop()` removes the row.
 *
 * Carried beats: when the registry says its driver's claim can carry a beat (`claimCarriesBeat`), a beat that is due
 * rides the next claim the worker sends anyway ({@link carry}) — an idle worker claims every few seconds, so its
 * presence then costs no statement of its own. The beat is written alone only when no claim carried it within a grace
 * after it fell due (a worker whose slots are all busy sends no claim): half an interval, and never so late that the
 * row could lapse — at most half the time the interval leaves of the visibility timeout. So a row is renewed at most
 * `intervalMs + grace` after the last renewal, well inside its visibility timeout.
 *
 * A claim that carried a beat and answers after `stop()` removed the row (a claim past the stop's deadline, or queued
 * behind a busy pool) may have written the row back: the row is removed once more when it answers, so a stopped
 * worker is not listed until its row expires.
 */
export class WorkerPresence {
  readonly #startedAt: number;
  /** How long after a beat fell due it is written alone, when no claim carried it. */
  readonly #graceMs: number;
  #timer: TimerHandle | undefined;
  #beating: Promise<void> | undefined;
  #running = false;
  /** When (worker clock) the last beat that landed was sent; undefined before the first. */
  #lastAt: number | undefined;
  /** Whether a claim carrying a beat is on the wire. */
  #carrying = false;
  /** Whether `stop()` was called: every removal after it is chained on {@link #leaving}. */
  #stopped = false;
  /** The last removal of the row sent, settled once it is done (a failed one logged). */
  #leaving: Promise<void> | undefined;

  constructor(private readonly o: WorkerPresenceOptions) {
    this.#startedAt = o.clock.now();
    this.#graceMs =
      o.registry.claimCarriesBeat === true
        ? Math.max(0, Math.floor(Math.min(o.intervalMs, o.visibilityTimeoutMs - o.intervalMs) / 2))
        : 0;
  }

  /** Writes the row now, then every interval (a beat a claim carried counts). */
  start(): void {
    this.#running = true;
    this.#beat();
  }

  /**
   * The beat a claim sent at `now` carries (`ClaimOptions.presence`): one when a beat is due, the registry lets claims
   * carry it and no other claim carries one; undefined otherwise. Answer {@link carried} once that claim returns.
   */
  carry(now: number): ClaimPresence | undefined {
    const o = this.o;
    if (!this.#running || o.registry.claimCarriesBeat !== true) return undefined;
    if (this.#carrying || this.#beating !== undefined || this.#lastAt === undefined)
      return undefined;
    if (now - this.#lastAt < o.intervalMs) return undefined;
    this.#carrying = true;
    return { beat: this.#row(), visibilityTimeoutMs: o.visibilityTimeoutMs };
  }

  /** The claim that carried a beat, sent at `sentAt`, returned: `landed` if it was answered (its write committed). */
  carried(sentAt: number, landed: boolean): void {
    this.#carrying = false;
    // after the stop, what the claim wrote (a claim that threw may have written too) is removed again
    if (this.#stopped) {
      void this.#leave();
      return;
    }
    if (!landed || !this.#running) return;
    this.#landed(sentAt);
    this.#arm(sentAt + this.o.intervalMs + this.#graceMs);
  }

  /**
   * Stops beating and removes the row once a beat under way has finished; a failed removal is logged. A claim carrying
   * a beat that answers later removes the row again ({@link carried}).
   */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    await this.#beating;
    await this.#leave();
  }

  /** Removes the row after any removal sent before (so in the order asked); a failed removal is logged. */
  #leave(): Promise<void> {
    const after = this.#leaving ?? Promise.resolve();
    const leaving = after
      .then(() => this.o.registry.leave(this.o.workerId))
      .then(undefined, (error: unknown) => this.#failed('leave', error));
    this.#leaving = leaving;
    return leaving;
  }

  /** Writes the row alone, then arms the next standalone beat (a failed one is tried again one interval later). */
  #beat(): void {
    const o = this.o;
    const sentAt = o.clock.now();
    this.#beating = o.registry
      .beat(this.#row(), o.visibilityTimeoutMs)
      .then(
        () => {
          this.#landed(sentAt);
          return sentAt + o.intervalMs + this.#graceMs;
        },
        (error: unknown) => {
          this.#failed('beat', error);
          return o.clock.now() + o.intervalMs;
        },
      )
      .then((next) => {
        this.#beating = undefined;
        this.#arm(next);
      });
  }

  #row(): WorkerBeat {
    const o = this.o;
    return {
      id: o.workerId,
      host: hostname(),
      pid: process.pid,
      startedAt: this.#startedAt,
      slots: Object.fromEntries(o.slots()),
      inFlight: [...o.inFlight()],
    };
  }

  #landed(sentAt: number): void {
    if (this.#lastAt === undefined || sentAt > this.#lastAt) this.#lastAt = sentAt;
  }

  /** (Re-)arms the standalone beat for `at` (worker clock). */
  #arm(at: number): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    if (!this.#running) return;
    const o = this.o;
    this.#timer = o.clock.setTimeout(
      () => {
        this.#timer = undefined;
        if (this.#running) this.#beat();
      },
      Math.max(0, at - o.clock.now()),
    );
  }

  #failed(what: 'beat' | 'leave', error: unknown): void {
    this.o.logger.log('warn', 'jobs.worker.beat-failed', {
      workerId: this.o.workerId,
      what,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
