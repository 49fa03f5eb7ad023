import { randomUUID } from 'node:crypto';
import { MAX_QUEUE_NAME_LENGTH, type TimerHandle } from '@ultimat3/jobs';
import { connectSession, type WakeNotification, type WakeSession } from './wake-session';
import { destroySocket, endWithin } from './wake-socket';
import type { QueueWake, StartQueueWakeOptions } from './queue-wake-options';
import { queueWakeConfig, WAKE_REDIAL_MAX_MS, type QueueWakeConfig } from './queue-wake-config';

export type {
  OwnChannel,
  QueueWake,
  StartQueueWakeOptions,
  WakeTarget,
} from './queue-wake-options';
export { WAKE_PROBE_TIMEOUT_MS, WAKE_REDIAL_MAX_MS, WAKE_REDIAL_MS } from './queue-wake-config';

/**
 * A fresh probe payload: `probe/` and two random UUIDs, 78 characters — longer than any queue name
 * (`MAX_QUEUE_NAME_LENGTH`, 63), so a listener tells it from every queue's wake by its length alone.
 */
const probeToken = (): string => `probe/${randomUUID()}${randomUUID()}`;

/**
 * Holds ONE LISTEN session on `x_jobs_wake` per worker process and turns each notification — a queue name another
 * process announced (see `SQL_ENQUEUE`) — into `onWake(queue, sweepAfterMs)`, the signal the idle loop already hears:
 * the worker passes at once, and once more `sweepAfterMs` after the latest wake, for the rows of the announced slot
 * that skipped their own announcement (the throttle) and committed just after. A handed enqueue announces its slot on
 * the sweep channel instead (`WAKE_SWEEP_CHANNEL`): its row is already its worker's, so each listener is told
 * `onSweep(queue, sweepAfterMs)` and passes only then.
 *
 * The wake is PROVEN before the idle ceiling rises: after LISTEN, a probe is sent through the pooled `executor`; when it
 * comes back on the session the wake is `jobs.wake.live` and `onLive(true)` lets the worker idle at the 5 s ceiling.
 * A probe that does not come back within `probeTimeoutMs` is `jobs.wake.unverified`, logged once, with the fix: the
 * ceiling stays 2 s. A session that drops (error or end) is `jobs.wake.lost`: `onLive(false)` at once, then re-dialled
 * with a doubling wait, and proven again. The poll is the guarantee throughout: a notification lost with its session
 * only delays a job to the next poll.
 */
export function startQueueWake(options: StartQueueWakeOptions): QueueWake {
  const wake = new RunningWake(queueWakeConfig(options));
  void wake.open();
  return {
    live: () => wake.live,
    ready: () => wake.ready,
    stop: () => wake.stop(),
  };
}

/**
 * The state of a started wake: its current session, whether that session is proven, the probe in flight and the
 * re-dial's timer and wait. The callbacks the options give are called as plain functions (never on `this`).
 */
class RunningWake {
  stopped = false;
  live = false;
  private session: WakeSession | undefined;
  private redialMs: number;
  private redialTimer: TimerHandle | undefined;
  private probe: { token: string; timer: TimerHandle; settle: (ok: boolean) => void } | undefined;
  private warnedUnverified = false;
  /** The stop in flight or done: every caller of {@link RunningWake.stop} awaits this one. */
  private stopping: Promise<void> | undefined;
  private resolveReady: (ok: boolean) => void = () => {};
  /** Resolves once the first probe came back (true) or timed out / the dial failed (false). */
  readonly ready = new Promise<boolean>((resolve) => {
    this.resolveReady = resolve;
  });

  constructor(private readonly config: QueueWakeConfig) {
    this.redialMs = config.firstRedialMs;
  }

  private setLive(next: boolean): void {
    if (this.live === next) return;
    this.live = next;
    const { onLive } = this.config;
    onLive(next);
  }

  /** Routes one notification of the session: the own channel's, a sweep, our probe back, or a queue's wake. */
  private readonly onNotification = (message: WakeNotification): void => {
    const { own, sweepAfterMs } = this.config;
    if (own !== undefined && message.channel === own.channel)
      return own.heard(message.payload ?? '');
    if (message.channel === this.config.sweepChannel) {
      const { onSweep } = this.config;
      return onSweep(message.payload ?? '', sweepAfterMs);
    }
    if (message.channel !== this.config.channel) return;
    const payload = message.payload ?? '';
    const probe = this.probe;
    if (probe !== undefined && payload === probe.token) return probe.settle(true);
    // a probe of another process (or a late one of ours) is longer than any queue name: a queue may be named
    // `probe/…`, and must be woken all the same
    if (payload.length > MAX_QUEUE_NAME_LENGTH) return;
    const { onWake } = this.config;
    onWake(payload, sweepAfterMs);
  };

  private drop(current: WakeSession, error: Error | undefined): void {
    if (this.session !== current) return; // a session we already let go
    this.session = undefined;
    this.probe?.settle(false);
    current.removeAllListeners('notification');
    current.end().catch(() => undefined);
    this.config.own?.lost();
    if (this.stopped) return;
    this.setLive(false);
    this.config.logger.log('warn', 'jobs.wake.lost', {
      error: error?.message ?? 'session ended',
      redialInMs: this.redialMs,
    });
    this.scheduleDial();
  }

  private scheduleDial(): void {
    if (this.redialTimer !== undefined) return;
    this.redialTimer = this.config.clock.setTimeout(() => {
      this.redialTimer = undefined;
      void this.open();
    }, this.redialMs);
    this.redialMs = Math.min(this.redialMs * 2, WAKE_REDIAL_MAX_MS);
  }

  /** Sends a probe through the pool and waits for it on the session: true when it came back in time. */
  private prove(): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const token = probeToken();
      const settle = (ok: boolean): void => {
        if (this.probe?.token !== token) return;
        this.probe.timer.cancel();
        this.probe = undefined;
        resolve(ok);
      };
      const { clock, executor, channel, logger } = this.config;
      this.probe = {
        token,
        timer: clock.setTimeout(() => settle(false), this.config.probeTimeoutMs),
        settle,
      };
      executor
        .query('select pg_notify($1::text, $2::text)', [channel, token])
        .catch((error: unknown) => {
          logger.log('warn', 'jobs.wake.probe-failed', { error: String(error) });
          settle(false);
        });
    });
  }

  /** Dials a session, listens on it and proves it; a failure drops it, to be re-dialled. */
  async open(): Promise<void> {
    if (this.stopped) return;
    const { dial, channel, sweepChannel, own, logger } = this.config;
    let current: WakeSession | undefined;
    try {
      current = await dial();
      if (current === undefined) return this.cannotRedial();
      if (this.stopped) {
        // stopped while the factory dialled: this session is no one's to end but ours (stop() ended none)
        await current.end().catch(() => undefined);
        return;
      }
      const mine = current;
      this.session = mine;
      mine.on('notification', this.onNotification);
      mine.on('error', (error) => this.drop(mine, error));
      mine.on('end', () => this.drop(mine, undefined));
      await connectSession(mine);
      await this.listenWithin(mine, [channel, sweepChannel, own?.channel]);
    } catch (error) {
      return this.openFailed(current, error);
    }
    if (this.stopped || this.session !== current) return;
    const proven = await this.prove();
    if (this.stopped || this.session !== current) return;
    if (proven) {
      this.provenLive();
      // only on a proven session: a LISTEN that hears nothing (a transaction-pooling proxy) must register nothing
      await own?.opened(current).catch((error: unknown) =>
        logger.log('warn', 'jobs.wake.own-open-failed', {
          channel: own.channel,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    } else if (!this.warnedUnverified) this.warnUnverified();
    this.resolveReady(proven);
  }

  /**
   * LISTENs on each of `channels` (those given) on `session`, bounded by the probe's timeout: a server gone silent
   * after the connect (a partition) never answers, and the wake would wait on it for ever with no error to re-dial on.
   * Past the bound the session's socket is destroyed, which fails the LISTEN in flight, and the session is dropped
   * to be re-dialled.
   */
  private async listenWithin(
    session: WakeSession,
    channels: readonly (string | undefined)[],
  ): Promise<void> {
    const { clock, probeTimeoutMs } = this.config;
    const bound = clock.setTimeout(() => {
      destroySocket(session);
      this.drop(
        session,
        new Error(`the session did not answer LISTEN within ${probeTimeoutMs} ms`),
      );
    }, probeTimeoutMs);
    try {
      for (const name of channels) if (name !== undefined) await session.query(`listen ${name}`);
    } finally {
      bound.cancel();
    }
  }

  /** The dial answered no session: the listener given was an instance, dialled once already. */
  private cannotRedial(): void {
    this.config.logger.log('warn', 'jobs.wake.unverified', {
      reason: 'the session dropped and the listener given cannot be re-dialled',
      fix: 'pass startQueueWake a factory that dials a new pg.Client; jobs start on the 2 s poll meanwhile',
    });
    this.resolveReady(false);
  }

  /** The dial, connect or a LISTEN failed: `current` is the session dialled, if the factory answered one. */
  private openFailed(current: WakeSession | undefined, error: unknown): void {
    const reason = error instanceof Error ? error : new Error(String(error));
    if (current === undefined) {
      // the factory threw: nothing to let go, dial again
      if (!this.stopped) {
        this.config.logger.log('warn', 'jobs.wake.lost', {
          error: reason.message,
          redialInMs: this.redialMs,
        });
        this.scheduleDial();
      }
    } else {
      this.drop(current, reason); // a no-op when its error event already dropped it
    }
    this.resolveReady(false);
  }

  /** The probe came back: the wait between dials starts over, and the worker may idle at its ceiling. */
  private provenLive(): void {
    this.redialMs = this.config.firstRedialMs;
    this.config.logger.log('info', 'jobs.wake.live', { channel: this.config.channel });
    this.setLive(true);
  }

  /** The first probe that did not come back: logged once, with the fix. */
  private warnUnverified(): void {
    this.warnedUnverified = true;
    this.config.logger.log('warn', 'jobs.wake.unverified', {
      channel: this.config.channel,
      probeTimeoutMs: this.config.probeTimeoutMs,
      fix:
        'give the worker a direct or session-pooled DATABASE_URL (not PgBouncer pool_mode = transaction): ' +
        'a LISTEN there hears nothing. Jobs other processes enqueue start on the 2 s poll meanwhile.',
    });
  }

  /**
   * Ends the session; no re-dial follows. Idempotent: every call answers the one stop, once the session is ended — or
   * its socket destroyed, when the server did not answer the goodbye within `WAKE_END_MS`.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopNow();
    return this.stopping;
  }

  /** {@link RunningWake.stop}'s one run. */
  private async stopNow(): Promise<void> {
    this.stopped = true;
    this.redialTimer?.cancel();
    this.probe?.settle(false);
    this.setLive(false);
    const current = this.session;
    this.session = undefined;
    this.resolveReady(false);
    if (current !== undefined) {
      current.removeAllListeners('notification');
      await endWithin(current, this.config.clock);
    }
  }
}
