import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { withBackfillLedger } from '../../backfill/facade-ledger';
import { setJobsFacade } from '../../declare/ambient';
import { currentOutboxTx } from '../../outbox/ambient-tx';
import { clsTransactionReader } from './cls-transaction';
import { outboxJobsFacade } from '../../outbox/outbox-facade';
import type { OutboxBacklog, QuarantinedOutboxRecord } from '../../outbox/outbox-store';
import { outboxRelay, type OutboxRelay } from '../../outbox/relay/outbox-relay';
import { JobsRuntime } from '../jobs.runtime';
import { JobsLifecycle } from '../lifecycle/jobs.lifecycle';
import { outboxBacklogCacheOf } from '../metrics/outbox-backlog.cache';
import type { JobsRoleHost } from '../lifecycle/role-host';
import { settleWithin } from '../../worker/settle-within';
import type { ResolvedOutboxModuleOptions } from './outbox-module.options';
import { OUTBOX_MODULE_OPTIONS } from './outbox.tokens';

/**
 * Puts the outbox in charge of `enqueue()` and runs the relay. It hands itself to `JobsLifecycle` at module init; the
 * lifecycle then, at bootstrap, installs `outboxJobsFacade` over `JobsModule`'s driver right after the direct facade
 * (so the outbox one is the newest and wins, whatever the import order) and, when this process holds the `relay`
 * role, starts `outboxRelay` — rows it publishes wake this process's worker. At shutdown the relay stops after the
 * scheduler and before the worker (stop polling, then join the pass in flight under `shutdown.deadlineMs`), and the
 * facade is removed before the driver closes.
 */
@Injectable()
export class OutboxHost implements JobsRoleHost, OnModuleInit {
  /** The role this host runs. */
  readonly role = 'relay';
  #relay: OutboxRelay | undefined;
  #wake: { stop(): Promise<void> } | undefined;
  #wakeStopped: Promise<void> | undefined;
  readonly #clsTx = clsTransactionReader();

  constructor(
    private readonly runtime: JobsRuntime,
    private readonly lifecycle: JobsLifecycle,
    @Inject(OUTBOX_MODULE_OPTIONS) private readonly options: ResolvedOutboxModuleOptions,
  ) {}

  /** The running relay, when this process holds the `relay` role. */
  get relay(): OutboxRelay | undefined {
    return this.#relay;
  }

  /**
   * The operator's view of the outbox, in any role: the staged rows the relay quarantined, oldest first (at most
   * `limit`, default 100) — see `OutboxStore.quarantined`.
   */
  quarantined(limit?: number): Promise<readonly QuarantinedOutboxRecord[]> {
    return this.options.store.quarantined(limit);
  }

  /** Puts quarantined rows back in the relay's claim, tries reset, once their cause is fixed (`OutboxStore.restore`). */
  restore(ids: readonly string[]): Promise<number> {
    return this.options.store.restore(ids);
  }

  /**
   * The relay fleet's backlog (`OutboxStore.backlog`), in any role: one statement a second at most in this process,
   * shared with `outbox_lag_seconds` and the health check's `outbox.maxLagMs`.
   */
  backlog(): Promise<OutboxBacklog> {
    return outboxBacklogCacheOf(this.options.store, this.runtime.config.clock).read();
  }

  /** Hands the outbox facade and this host to `JobsLifecycle`. */
  onModuleInit(): void {
    this.lifecycle.addFacade(() => this.installFacade());
    this.lifecycle.addHost(this);
    // its published rows, where the driver's sweep does not reach them (a 'redis' driver)
    const { store } = this.options;
    this.runtime.addPurgeTargets((policy) =>
      store.purgeTarget === undefined ? [] : [store.purgeTarget(policy)],
    );
  }

  /** Installs the outbox facade `handle.enqueue()` routes through. Answers its removal. */
  installFacade(): () => void {
    const { clock, events } = this.runtime.config;
    const { store, mode } = this.options;
    return setJobsFacade(
      withBackfillLedger(
        outboxJobsFacade(
          {
            store,
            // counted in jobs_enqueued_total, as the relay's publishes are
            driver: this.runtime.enqueueDriver,
            clock,
            events,
            mode,
            onEnqueued: (queue) => this.runtime.notifyEnqueued(queue),
          },
          // The caller's transaction: OutboxInterceptor's, else @nestjs-cls/transactional's active one.
          () => currentOutboxTx() ?? this.#clsTx(),
        ),
        this.runtime.config.backend.backfills,
      ),
    );
  }

  /** Starts the relay and the outbox wake (the store's own, else the backend's). */
  async start(): Promise<void> {
    const { clock, logger, shutdownDeadlineMs } = this.runtime.config;
    const relay = outboxRelay({
      ...this.options.relay,
      store: this.options.store,
      driver: this.runtime.enqueueDriver,
      clock,
      logger,
      onPublished: (queue) => this.runtime.notifyEnqueued(queue),
    });
    relay.start();
    // A commit in another process reaches this relay through the store's own wake (a PostgreSQL store: LISTEN on
    // its database, whatever the job driver), else the backend's; the poll stays, idling higher while it is proven.
    const store = this.options.store;
    const startWake =
      store.startWake === undefined
        ? this.runtime.config.startOutboxWake
        : store.startWake.bind(store);
    this.#relay = relay;
    try {
      this.#wake = startWake?.(
        () => relay.wake(),
        logger,
        (live) => relay.setWakeLive(live),
      );
    } catch (error) {
      // the lifecycle stops only the hosts whose start resolved: this relay must not publish on in a failed boot
      this.beginStop();
      await this.stop(clock.now() + shutdownDeadlineMs).catch(() => undefined);
      throw error;
    }
  }

  /** Stops the wake and the relay's polling. */
  beginStop(): void {
    const relay = this.#relay;
    if (relay === undefined) return;
    this.#wakeStopped = this.#wake?.stop().catch(() => undefined);
    this.#wake = undefined;
    relay.beginDrain();
  }

  /** Joins the relay's pass in flight, up to `deadlineAt`. */
  async stop(deadlineAt: number): Promise<void> {
    const relay = this.#relay;
    if (relay === undefined) return;
    this.#relay = undefined;
    const wakeStopped = this.#wakeStopped;
    this.#wakeStopped = undefined;
    // the wake's goodbye (a LISTEN session's end() to a server gone silent) may never settle: the deadline bounds it
    if (wakeStopped !== undefined)
      await settleWithin(wakeStopped, deadlineAt, this.runtime.config.clock);
    await relay.stop(deadlineAt);
  }
}
