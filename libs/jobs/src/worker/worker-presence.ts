import { hostname } from 'node:os';
import type { WorkerRegistry } from '../driver/workers';
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
 */
export class WorkerPresence {
  readonly #startedAt: number;
  #timer: TimerHandle | undefined;
  #beating: Promise<void> | undefined;
  #running = false;

  constructor(private readonly o: WorkerPresenceOptions) {
    this.#startedAt = o.clock.now();
  }

  /** Writes the row now, then every interval. */
  start(): void {
    this.#running = true;
    this.#beat();
  }

  /** Stops beating and removes the row once a beat under way has finished; a failed removal is logged. */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.#timer?.cancel();
    this.#timer = undefined;
    await this.#beating;
    try {
      await this.o.registry.leave(this.o.workerId);
    } catch (error) {
      this.#failed('leave', error);
    }
  }

  #beat(): void {
    const o = this.o;
    const inFlight = [...o.inFlight()];
    this.#beating = o.registry
      .beat(
        {
          id: o.workerId,
          host: hostname(),
          pid: process.pid,
          startedAt: this.#startedAt,
          slots: Object.fromEntries(o.slots()),
          inFlight,
        },
        o.visibilityTimeoutMs,
      )
      .catch((error: unknown) => this.#failed('beat', error))
      .finally(() => {
        this.#beating = undefined;
        if (!this.#running) return;
        this.#timer = o.clock.setTimeout(() => {
          this.#timer = undefined;
          if (this.#running) this.#beat();
        }, o.intervalMs);
      });
  }

  #failed(what: 'beat' | 'leave', error: unknown): void {
    this.o.logger.log('warn', 'jobs.worker.beat-failed', {
      workerId: this.o.workerId,
      what,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
