import type { JobDriver } from '../driver/job-driver';
import type { Clock, TimerHandle } from '../util/clock';
import type { JobsLogger } from '../util/logger';

/** How often (worker clock, ms) a worker looks for waiting rows of job names it does not serve. */
export const UNSERVED_CHECK_INTERVAL_MS = 60_000;

/**
 * How long (ms) a row of a job name a worker does not serve must have been due before that worker reports the name.
 * A worker serving it takes a due row within its poll interval, or at once through the wake; a row left due this long
 * by every running worker is one no running worker serves (a job whose worker was never deployed, or whose code was
 * removed while rows of it still wait) — or one whose workers are a minute behind, which deserves a look as well.
 */
export const UNSERVED_AFTER_MS = 60_000;

/** Options of {@link UnservedNames}. */
export interface UnservedNamesOptions {
  readonly driver: JobDriver;
  readonly logger: JobsLogger;
  readonly workerId: string;
  /** Per queue the worker serves, the job names it serves there. */
  readonly served: ReadonlyMap<string, readonly string[]>;
  readonly clock: Clock;
  /** See {@link UNSERVED_AFTER_MS} (default 60 s). */
  readonly afterMs?: number;
}

/**
 * A worker claims only the names it serves (`ClaimSlot.names`), so a row of any other name waits in its queue for a
 * worker that does. This is how such a row gets noticed: on the worker's slow cadence, {@link UnservedNames.check}
 * reads `driver.stats()` and logs `jobs.worker.unserved-name` (warn) for each name of a queue the worker serves that
 * it does not serve itself and whose oldest due row has waited at least {@link UNSERVED_AFTER_MS} — ONCE per name per
 * worker. It never reads the database on the claim path, and reads it at all only when the claims' low water says a
 * row of a served queue may have waited that long.
 *
 * "No running worker serves it" is inferred from the row's age, not from a registry of workers: every worker claims
 * by name, so a due row that every running worker's claims pass over grows old, and one that a serving worker is
 * merely slow to reach does too — the log says both. A fleet of workers that each serve part of a queue's names on
 * purpose sees no report while each part keeps up.
 */
export class UnservedNames {
  readonly #reported = new Set<string>();
  readonly #afterMs: number;
  #timer: TimerHandle | undefined;
  #checking: Promise<void> | undefined;
  #running = false;

  constructor(private readonly options: UnservedNamesOptions) {
    this.#afterMs = options.afterMs ?? UNSERVED_AFTER_MS;
  }

  /** Starts the cadence: a check every {@link UNSERVED_CHECK_INTERVAL_MS} of the clock, the first one after one. */
  start(): void {
    this.#running = true;
    this.#arm();
  }

  /** Stops the cadence and answers once a check under way has finished; no timer is left armed. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#timer?.cancel();
    this.#timer = undefined;
    await this.#checking;
  }

  #arm(): void {
    this.#timer?.cancel();
    if (!this.#running) return;
    this.#timer = this.options.clock.setTimeout(() => {
      this.#timer = undefined;
      // The driver's bound on a served queue's waiting run times (`JobDriver.waitingBound`, PostgreSQL's low water),
      // when it knows one: above `now - afterMs` it proves no row of the queue has been due that long, and the check
      // skips its stats read — an idle worker over empty queues adds no statement.
      const since = this.options.clock.now() - this.#afterMs;
      const { driver } = this.options;
      const suspect = [...this.options.served.keys()].some(
        (queue) => (driver.waitingBound?.(queue) ?? since) <= since,
      );
      if (!suspect) return this.#arm();
      this.#checking = this.check().finally(() => {
        this.#checking = undefined;
        this.#arm();
      });
    }, UNSERVED_CHECK_INTERVAL_MS);
  }

  /** Reads the driver's stats once and reports each name not reported yet. */
  async check(): Promise<void> {
    const { driver, logger, workerId, served } = this.options;
    try {
      for (const queue of await driver.stats()) {
        const mine = served.get(queue.queue);
        if (mine === undefined) continue;
        for (const entry of queue.names) {
          const key = JSON.stringify([queue.queue, entry.name]);
          if (mine.includes(entry.name) || entry.oldestReadyMs < this.#afterMs) continue;
          if (this.#reported.has(key)) continue;
          this.#reported.add(key);
          logger.log('warn', 'jobs.worker.unserved-name', {
            workerId,
            queue: queue.queue,
            name: entry.name,
            count: entry.ready + entry.delayed + entry.suspended,
            oldestReadyMs: entry.oldestReadyMs,
            hint:
              `Rows of job "${entry.name}" have waited ${Math.round(entry.oldestReadyMs / 1000)} s in queue ` +
              `"${queue.queue}" and this worker does not serve that name. Deploy a worker that registers it ` +
              `(JobsModule.forFeature / jobWorker's registry), or, if the job was removed, cancel its rows.`,
          });
        }
      }
    } catch (error) {
      logger.log('warn', 'jobs.worker.unserved-check-failed', {
        workerId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
