import { Inject, Injectable } from '@nestjs/common';
import { withBackfillLedger } from '../backfill/facade-ledger';
import { setJobsFacade } from '../declare/ambient';
import { directJobsFacade } from '../declare/direct-facade';
import type { JobsConfig } from './jobs.config';
import { JOBS_CONFIG } from './jobs.constants';
import { fanOutJobMetrics, type JobMetrics } from '../runtime/metrics';
import { countingEnqueues } from './metrics/counting-driver';
import type { JobDriver } from '../driver/job-driver';
import type { PurgeTarget, ResolvedRetention } from '../driver/retention';

/**
 * The application's jobs runtime: the checked options, the driver, clock, logger and event bus. The config arrives
 * from the module's async provider with the driver already open (for `'postgres'`: pool built, migrations applied).
 * It has no Nest hooks of its own: `JobsLifecycle` installs its facade at bootstrap and closes it at shutdown, after
 * every host drained.
 */
@Injectable()
export class JobsRuntime {
  /** The checked options, with defaults filled in. */
  readonly config: JobsConfig;
  readonly #wakes = new Set<(queue: string) => void>();
  readonly #metrics: JobMetrics[] = [];
  readonly #purgeSources: ((policy: ResolvedRetention) => readonly PurgeTarget[])[] = [];
  #enqueueDriver: JobDriver | undefined;
  #closing: Promise<void> | undefined;

  constructor(@Inject(JOBS_CONFIG) config: JobsConfig) {
    this.config = config;
  }

  /**
   * The driver the enqueue paths write through — the facade, the outbox relay's publish, the scheduler's fire — so
   * `jobs_enqueued_total` sees their rows alike. The driver itself otherwise (`config.driver` stays the app's own).
   */
  get enqueueDriver(): JobDriver {
    this.#enqueueDriver ??= countingEnqueues(this.config.driver, (queue, rows) =>
      this.metrics?.enqueued?.(queue, rows),
    );
    return this.#enqueueDriver;
  }

  /** What the worker counts into: every sink `addMetrics` registered (undefined without one). */
  get metrics(): JobMetrics | undefined {
    return fanOutJobMetrics(this.#metrics);
  }

  /** Registers a metrics sink (`forRoot({ metrics })` does); call it before bootstrap, from `onModuleInit`. */
  addMetrics(sink: JobMetrics): void {
    this.#metrics.push(sink);
  }

  /**
   * Registers retention targets beyond the driver's own (`OutboxModule`'s store, whose published rows live apart from
   * a `'redis'` driver); call it before bootstrap, from `onModuleInit`. The module's sweep reads them per attempt.
   */
  addPurgeTargets(source: (policy: ResolvedRetention) => readonly PurgeTarget[]): void {
    this.#purgeSources.push(source);
  }

  /**
   * What the module's sweep empties under `policy`: the driver's targets, then each added one whose name the driver's
   * do not already hold (the `'postgres'` driver sweeps its own `x_outbox`).
   */
  purgeTargets(policy: ResolvedRetention): readonly PurgeTarget[] {
    const own = this.config.driver.purgeTargets?.(policy) ?? [];
    const names = new Set(own.map((target) => target.name));
    const added = this.#purgeSources.flatMap((source) => source(policy));
    return [...own, ...added.filter((target) => !names.has(target.name))];
  }

  /** Registers an in-process wake: told the queue of every row this process enqueued. Answers the removal. */
  onEnqueued(wake: (queue: string) => void): () => void {
    this.#wakes.add(wake);
    return () => this.#wakes.delete(wake);
  }

  /** Tells every registered wake that a row landed on `queue`: the facade's enqueues and the scheduler's fires. */
  notifyEnqueued(queue: string): void {
    this.#wakes.forEach((wake) => wake(queue));
  }

  /** Installs the facade `handle.enqueue()` routes straight to the driver through. Answers its removal. */
  installFacade(): () => void {
    const { clock, events } = this.config;
    return setJobsFacade(
      withBackfillLedger(
        directJobsFacade({
          driver: this.enqueueDriver,
          clock,
          events,
          onEnqueued: (queue) => this.notifyEnqueued(queue),
        }),
        this.config.backend.backfills,
      ),
    );
  }

  /** Closes the driver, then what was opened under it (the pool), last of all. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        await this.config.driver.close();
      } finally {
        await this.config.closeBackend();
      }
    })();
    return this.#closing;
  }
}
