import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { setJobsFacade } from '../declare/ambient';
import { directJobsFacade } from '../declare/direct-facade';
import type { JobsConfig } from './jobs.config';
import { JOBS_CONFIG } from './jobs.constants';

/**
 * The application's jobs runtime: the checked options, the driver, clock, logger and event bus. The config arrives
 * from the module's async provider with the driver already open (for `'postgres'`: pool built, migrations applied).
 * At bootstrap it installs the ambient facade `handle.enqueue()` routes through; at shutdown, after every host drained
 * (`beforeApplicationShutdown`), it removes the facade, closes the driver, then what was opened under it (the pool),
 * last of all.
 */
@Injectable()
export class JobsRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  /** The checked options, with defaults filled in. */
  readonly config: JobsConfig;
  readonly #wakes = new Set<(queue: string) => void>();
  #uninstall: (() => void) | undefined;
  #closed = false;

  constructor(@Inject(JOBS_CONFIG) config: JobsConfig) {
    this.config = config;
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

  onApplicationBootstrap(): void {
    const { driver, clock, events, logger, roles } = this.config;
    this.#uninstall = setJobsFacade(
      directJobsFacade({
        driver,
        clock,
        events,
        onEnqueued: (queue) => this.notifyEnqueued(queue),
      }),
    );
    logger.log('info', 'jobs.module.started', { driver: driver.kind, roles: [...roles] });
  }

  async onApplicationShutdown(): Promise<void> {
    this.#uninstall?.();
    this.#uninstall = undefined;
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.config.driver.close();
    } finally {
      await this.config.closeBackend();
    }
  }
}
