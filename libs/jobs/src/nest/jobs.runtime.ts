import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { setJobsFacade } from '../declare/ambient';
import { directJobsFacade } from '../declare/direct-facade';
import { resolveJobsConfig, type JobsConfig } from './jobs.config';
import { JOBS_MODULE_OPTIONS } from './jobs.module-definition';
import type { JobsModuleOptions } from './jobs.options';

/**
 * The application's jobs runtime: the checked options, the driver, clock, logger and event bus. At bootstrap it
 * installs the ambient facade `handle.enqueue()` routes through; at shutdown, after every host drained
 * (`beforeApplicationShutdown`), it removes the facade and closes the driver, last.
 */
@Injectable()
export class JobsRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  /** The checked options, with defaults filled in. */
  readonly config: JobsConfig;
  readonly #wakes = new Set<(queue: string) => void>();
  #uninstall: (() => void) | undefined;
  #closed = false;

  constructor(@Inject(JOBS_MODULE_OPTIONS) options: JobsModuleOptions) {
    this.config = resolveJobsConfig(options);
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
    await this.config.driver.close();
  }
}
