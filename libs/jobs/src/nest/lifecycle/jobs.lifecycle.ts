import {
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { announceJobsModule, type JobsModulePhase } from '../../declare/ambient';
import { JobsRuntime } from '../jobs.runtime';
import { SchedulerHost } from '../scheduler.host';
import { WorkerHost } from '../worker.host';
import { exitCleanlyOnReraise, holdProcess, type ProcessHold } from './process-hold';
import { ROLE_START_ORDER, ROLE_STOP_ORDER, type JobsRoleHost } from './role-host';

/** What a shutdown that no signal started is called in logs and in `X_DRAINING` errors. */
export const PROGRAMMATIC_CLOSE = 'app.close()';

/**
 * The one owner of the jobs runtime's process lifecycle; no host has Nest hooks of its own.
 *
 * - bootstrap (`JobsModule` is global, so this runs before any other module's `onApplicationBootstrap`): installs the
 *   direct facade, then the outbox facade when `OutboxModule` is there; starts the hosts of the roles this process
 *   holds — worker, relay, scheduler — and, when it holds any of them, holds the process open with one ref'd handle
 *   until shutdown has closed the driver (every runtime timer is unref'd: a drain waiting on runs would otherwise let
 *   the process end mid-way, exit code 0). A `web`-only process, or a test that closes its app, is never held.
 * - `beforeApplicationShutdown`: stops the scheduler, the relay and the worker in that order — each stops taking work
 *   at once, then each is waited for — all under one `shutdown.deadlineMs`. A stop that fails lets the hold go (Nest 11
 *   runs no later hook after it; Nest 12 logs the error and goes on to `onApplicationShutdown`).
 * - `onApplicationShutdown`: removes the facades, closes the driver, then the pool under it, and lets the hold go.
 *   After a drain a signal started, the signal Nest re-raises ends the process with exit code 0 (see
 *   {@link exitCleanlyOnReraise}).
 *
 * A host that fails to start fails the boot with its coded error: the hosts already started are stopped first.
 */
@Injectable()
export class JobsLifecycle
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  readonly #hosts: JobsRoleHost[] = [];
  readonly #facades: (() => () => void)[] = [];
  readonly #started: JobsRoleHost[] = [];
  readonly #uninstall: (() => void)[] = [];
  readonly #phase: JobsModulePhase = announceJobsModule();
  #hold: ProcessHold | undefined;
  #held = false;

  constructor(
    private readonly runtime: JobsRuntime,
    worker: WorkerHost,
    scheduler: SchedulerHost,
  ) {
    this.#hosts.push(worker, scheduler);
  }

  /** Adds a host to start and stop (OutboxModule's relay); call it before bootstrap, from `onModuleInit`. */
  addHost(host: JobsRoleHost): void {
    this.#hosts.push(host);
  }

  /** Adds a facade to install after the direct one, so it wins (OutboxModule's); answers removal at shutdown. */
  addFacade(install: () => () => void): void {
    this.#facades.push(install);
  }

  /** Whether the process is held open (a long-running role was started and shutdown has not closed the driver). */
  get holdsProcess(): boolean {
    return this.#hold !== undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { roles, logger, driver } = this.runtime.config;
    this.#uninstall.push(this.runtime.installFacade());
    for (const install of this.#facades) this.#uninstall.push(install());
    this.#phase.started();
    if (roles.has('relay') && !this.#hosts.some((host) => host.role === 'relay')) {
      logger.log('warn', 'jobs.relay.no-outbox', {
        fix: 'Import OutboxModule.forRoot({ dataSource, store }) in this app, or drop the relay role.',
      });
    }
    try {
      for (const role of ROLE_START_ORDER) {
        if (!roles.has(role)) continue;
        for (const host of this.#hosts.filter((h) => h.role === role)) {
          await host.start();
          this.#started.push(host);
        }
      }
    } catch (error) {
      await this.#stopHosts('start-failed').catch(() => undefined);
      throw error;
    }
    if (ROLE_STOP_ORDER.some((role) => roles.has(role))) {
      this.#hold = holdProcess();
      this.#held = true;
    }
    logger.log('info', 'jobs.module.started', { driver: driver.kind, roles: [...roles] });
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    const cause = signal ?? PROGRAMMATIC_CLOSE;
    this.runtime.config.logger.log('info', 'jobs.module.stopping', { cause });
    try {
      // still held: the drain may wait on nothing but unref'd timers, up to the deadline
      await this.#stopHosts(cause);
    } catch (error) {
      // Nest 11 runs no onApplicationShutdown after a throw here (12 does): nothing else would let the hold go there
      this.#release();
      throw error;
    }
  }

  async onApplicationShutdown(signal?: string): Promise<void> {
    try {
      for (const uninstall of this.#uninstall.splice(0).reverse()) uninstall();
      this.#phase.closed();
      await this.runtime.close();
    } finally {
      this.#release();
    }
    if (this.#held) exitCleanlyOnReraise(signal);
  }

  #release(): void {
    this.#hold?.release();
    this.#hold = undefined;
  }

  /** Stops every started host: all stop taking work (scheduler, relay, worker), then each is waited for. */
  async #stopHosts(cause: string): Promise<void> {
    const { clock, shutdownDeadlineMs } = this.runtime.config;
    const deadlineAt = clock.now() + shutdownDeadlineMs;
    const started = this.#started.splice(0);
    const ordered = ROLE_STOP_ORDER.flatMap((role) => started.filter((h) => h.role === role));
    for (const host of ordered) host.beginStop(cause, deadlineAt);
    const failures: unknown[] = [];
    // one host failing to stop must not leave the next one running
    for (const host of ordered) await host.stop(deadlineAt).catch((e: unknown) => failures.push(e));
    if (failures.length > 0) throw failures[0];
  }
}
