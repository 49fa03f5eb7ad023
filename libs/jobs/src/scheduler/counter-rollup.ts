import { COUNTER_ROLLUP_INTERVAL_MS } from '../driver/counters';
import type { JobIntrospection } from '../driver/introspection';
import type { Clock, TimerHandle } from '../util/clock';
import type { JobsLogger } from '../util/logger';

/** What the leader's counter rollup needs. */
export interface CounterRollupOptions {
  readonly introspect: Pick<JobIntrospection, 'rollupCounters'>;
  readonly clock: Clock;
  readonly logger: JobsLogger;
  /** Whether this process leads the scheduler now: only the leader folds. */
  readonly isLeader: () => boolean;
  /** Default {@link COUNTER_ROLLUP_INTERVAL_MS} (a minute). */
  readonly intervalMs?: number;
}

/**
 * The scheduler leader's once-a-minute `rollupCounters()`. A hook of the leader rather than a task: it runs no job
 * code, needs no worker, and a fold is idempotent, so a second leader during a handover costs one empty statement. A
 * fold that fails is logged `jobs.counters.rollup-failed` (warn) and the next minute tries again.
 */
export class CounterRollup {
  #timer: TimerHandle | undefined;
  #folding: Promise<void> | undefined;
  #running = false;

  constructor(private readonly o: CounterRollupOptions) {}

  start(): void {
    this.#running = true;
    this.#arm();
  }

  /** Stops the cadence and answers once a fold under way has finished. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#timer?.cancel();
    this.#timer = undefined;
    await this.#folding;
  }

  #arm(): void {
    if (!this.#running) return;
    this.#timer = this.o.clock.setTimeout(() => {
      this.#timer = undefined;
      if (!this.o.isLeader()) return this.#arm();
      this.#folding = this.o.introspect
        .rollupCounters()
        .then(
          (folded) => {
            if (folded > 0) this.o.logger.log('debug', 'jobs.counters.rolled-up', { folded });
          },
          (error: unknown) =>
            this.o.logger.log('warn', 'jobs.counters.rollup-failed', {
              error: error instanceof Error ? error.message : String(error),
            }),
        )
        .finally(() => {
          this.#folding = undefined;
          this.#arm();
        });
    }, this.o.intervalMs ?? COUNTER_ROLLUP_INTERVAL_MS);
  }
}
