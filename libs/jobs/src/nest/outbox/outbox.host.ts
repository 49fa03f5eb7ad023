import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { setJobsFacade } from '../../declare/ambient';
import { currentOutboxTx } from '../../outbox/ambient-tx';
import { clsTransactionReader } from './cls-transaction';
import { outboxJobsFacade } from '../../outbox/outbox-facade';
import { outboxRelay, type OutboxRelay } from '../../outbox/relay/outbox-relay';
import { JobsRuntime } from '../jobs.runtime';
import { WorkerHost } from '../worker.host';
import type { ResolvedOutboxModuleOptions } from './outbox-module.options';
import { OUTBOX_MODULE_OPTIONS } from './outbox.tokens';

/**
 * Puts the outbox in charge of `enqueue()` and runs the relay.
 *
 * - bootstrap: installs `outboxJobsFacade` over `JobsModule`'s driver — AFTER `JobsRuntime` installed its direct
 *   facade (a global module's hooks run first), so the outbox one is the newest and wins — and, when this process
 *   holds the `relay` role, starts `outboxRelay`. Rows it publishes wake this process's worker.
 * - `beforeApplicationShutdown`: the drain — stop polling, then join the pass in flight under `shutdown.deadlineMs`.
 *   This module's hooks run before `JobsModule`'s, so the relay is stopped before the driver is closed.
 * - `onApplicationShutdown`: removes the facade.
 */
@Injectable()
export class OutboxHost
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  #relay: OutboxRelay | undefined;
  #uninstall: (() => void) | undefined;
  #wake: { stop(): Promise<void> } | undefined;
  readonly #clsTx = clsTransactionReader();

  constructor(
    private readonly runtime: JobsRuntime,
    private readonly workers: WorkerHost,
    @Inject(OUTBOX_MODULE_OPTIONS) private readonly options: ResolvedOutboxModuleOptions,
  ) {}

  /** The running relay, when this process holds the `relay` role. */
  get relay(): OutboxRelay | undefined {
    return this.#relay;
  }

  onApplicationBootstrap(): void {
    const { driver, clock, events, logger, roles } = this.runtime.config;
    const { store, mode } = this.options;
    const wake = (queue: string): void => this.workers.worker?.signalEnqueued(queue);
    this.#uninstall = setJobsFacade(
      outboxJobsFacade(
        { store, driver, clock, events, mode, onEnqueued: wake },
        // The caller's transaction: OutboxInterceptor's, else @nestjs-cls/transactional's active one.
        () => currentOutboxTx() ?? this.#clsTx(),
      ),
    );
    if (!roles.has('relay')) return;
    const relay = outboxRelay({
      ...this.options.relay,
      store,
      driver,
      clock,
      logger,
      onPublished: wake,
    });
    relay.start();
    this.#relay = relay;
    // A commit in another process reaches this relay through the backend's wake (Postgres LISTEN); the poll stays.
    this.#wake = this.runtime.config.startOutboxWake?.(() => relay.wake(), logger);
  }

  async beforeApplicationShutdown(): Promise<void> {
    const relay = this.#relay;
    if (relay === undefined) return;
    this.#relay = undefined;
    const wake = this.#wake;
    this.#wake = undefined;
    await wake?.stop().catch(() => undefined);
    const { clock, shutdownDeadlineMs } = this.runtime.config;
    relay.beginDrain();
    await relay.stop(clock.now() + shutdownDeadlineMs);
  }

  onApplicationShutdown(): void {
    this.#uninstall?.();
    this.#uninstall = undefined;
  }
}
