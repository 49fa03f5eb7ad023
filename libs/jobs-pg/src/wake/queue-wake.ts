import { randomUUID } from 'node:crypto';
import {
  silentLogger,
  systemClock,
  type Clock,
  type JobsLogger,
  type TimerHandle,
} from '@ultimat3/jobs';
import type { PgExecutor } from '../executor/pg-executor';
import {
  connectSession,
  dialler,
  WAKE_CHANNEL,
  WAKE_SWEEP_CHANNEL,
  WAKE_SWEEP_MS,
  type WakeListener,
  type WakeNotification,
  type WakeSession,
} from './wake-session';

/** A channel name a LISTEN may splice in: a plain lower-case identifier, at most 63 bytes. */
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/** How long a probe may take to come back on the session before the wake is reported unverified. */
export const WAKE_PROBE_TIMEOUT_MS = 3_000;
/** The first wait before re-dialling a dropped session; it doubles up to {@link WAKE_REDIAL_MAX_MS}. */
export const WAKE_REDIAL_MS = 500;
/** The longest wait between two dials. */
export const WAKE_REDIAL_MAX_MS = 30_000;

/** What a wake drives: a worker (`jobWorker()`), or anything with the same members. */
export interface WakeTarget {
  /** A queue was announced; `sweepAfterMs`: pass once more that long after (see {@link WAKE_SWEEP_MS}). */
  signalEnqueued(queue: string, sweepAfterMs?: number): void;
  /**
   * A handed row announced its queue's slot ({@link WAKE_SWEEP_CHANNEL}): nothing to claim now, one pass
   * `sweepAfterMs` later for the rows of the slot that skipped their announcement. Optional: a target without it is
   * told `signalEnqueued` instead (a pass now as well, which finds nothing more).
   */
  signalSweep?(queue: string, sweepAfterMs: number): void;
  setWakeLive(live: boolean): void;
}

/** Options of {@link startQueueWake}. */
export interface StartQueueWakeOptions {
  /**
   * The LISTEN session: a dedicated `pg.Client` (connected or not), or a factory dialling one. It must reach the
   * server directly or through a session-pooling proxy — never PgBouncer in transaction mode.
   */
  readonly listener: WakeListener;
  /** The pooled executor the probe is sent through: the path every enqueue takes. */
  readonly executor: PgExecutor;
  /**
   * Told each queue another process announced, with how long after it the rows the announcement stands for have
   * committed (default `target.signalEnqueued`, which sweeps once more then).
   */
  readonly onWake?: (queue: string, sweepAfterMs: number) => void;
  /**
   * Told each queue a handed enqueue announced on the sweep channel (default `target.signalSweep`, else `onWake`):
   * pass `sweepAfterMs` later, not now.
   */
  readonly onSweep?: (queue: string, sweepAfterMs: number) => void;
  /** The `sweepAfterMs` each wake carries (default {@link WAKE_SWEEP_MS}: the 5 ms slot and a 10 ms commit margin). */
  readonly sweepAfterMs?: number;
  /** Told when the wake is proven live, and when it is lost (default `target.setWakeLive`). */
  readonly onLive?: (live: boolean) => void;
  /** The worker to drive: its `signalEnqueued` and `setWakeLive` are the defaults of `onWake` and `onLive`. */
  readonly target?: WakeTarget;
  readonly logger?: JobsLogger;
  readonly clock?: Clock;
  /** How long the probe may take (default 3 s). */
  readonly probeTimeoutMs?: number;
  /**
   * The channel to LISTEN on (default `x_jobs_wake`, whose payload is a queue name). The outbox relay listens on
   * `x_outbox_wake` with the same proven, re-dialled session.
   */
  readonly channel?: string;
  /**
   * The channel handed enqueues announce their slot on, listened on beside `channel` (default
   * {@link WAKE_SWEEP_CHANNEL} when `channel` is the jobs' wake, none otherwise).
   */
  readonly sweepChannel?: string;
  /** The first re-dial wait (default 500 ms, doubling to 30 s). */
  readonly redialMs?: number;
  /** A second channel the same session listens on, for a worker's own notifications (the hand-off's). */
  readonly own?: OwnChannel;
}

/**
 * A channel of one worker's own on the wake's session ({@link StartQueueWakeOptions.own}): listened on right after the
 * wake's, each time a session opens; `opened` runs on the session once its probe came back (the hand-off takes its
 * lock and registers there — never on a session that hears nothing; a failure is logged, the wake stays), `heard` is
 * told each payload, and `lost` each time the session drops.
 */
export interface OwnChannel {
  readonly channel: string;
  opened(session: WakeSession): Promise<void>;
  heard(payload: string): void;
  lost(): void;
}

/** A running wake. */
export interface QueueWake {
  /** Whether the current session is proven: a probe sent through the executor came back on it. */
  live(): boolean;
  /** Resolves once the first probe came back (true) or timed out / the dial failed (false). */
  ready(): Promise<boolean>;
  /** Ends the session; no re-dial follows. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Holds ONE LISTEN session on `x_jobs_wake` per worker process and turns each notification — a queue name another
 * process announced (see `SQL_ENQUEUE`) — into `onWake(queue, sweepAfterMs)`, the signal the idle loop already hears:
 * the worker passes at once, and once more `sweepAfterMs` after the latest wake, for the rows of the announced slot
 * that skipped their own announcement (the throttle) and committed just after. A handed enqueue announces its slot on
 * the sweep channel instead ({@link WAKE_SWEEP_CHANNEL}): its row is already its worker's, so each listener is told
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
  const onWake = options.onWake ?? options.target?.signalEnqueued.bind(options.target);
  if (onWake === undefined) throw new TypeError('startQueueWake: pass onWake or target.');
  const onSweep =
    options.onSweep ??
    (options.onWake === undefined
      ? options.target?.signalSweep?.bind(options.target)
      : undefined) ??
    onWake;
  const sweepAfterMs = options.sweepAfterMs ?? WAKE_SWEEP_MS;
  const onLive = options.onLive ?? options.target?.setWakeLive.bind(options.target) ?? (() => {});
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const probeTimeoutMs = options.probeTimeoutMs ?? WAKE_PROBE_TIMEOUT_MS;
  const channel = options.channel ?? WAKE_CHANNEL;
  // The channel is spliced into LISTEN (it cannot be a parameter): only a plain identifier is accepted.
  if (!CHANNEL.test(channel)) throw new TypeError(`startQueueWake: bad channel ${channel}`);
  const sweepChannel =
    options.sweepChannel ?? (channel === WAKE_CHANNEL ? WAKE_SWEEP_CHANNEL : undefined);
  if (sweepChannel !== undefined && !CHANNEL.test(sweepChannel))
    throw new TypeError(`startQueueWake: bad channel ${sweepChannel}`);
  const firstRedialMs = options.redialMs ?? WAKE_REDIAL_MS;
  const dial = dialler(options.listener);

  let stopped = false;
  let live = false;
  let session: WakeSession | undefined;
  let redialMs = firstRedialMs;
  let redialTimer: TimerHandle | undefined;
  let probe: { token: string; timer: TimerHandle; settle: (ok: boolean) => void } | undefined;
  let warnedUnverified = false;
  let resolveReady: (ok: boolean) => void = () => {};
  const ready = new Promise<boolean>((resolve) => {
    resolveReady = resolve;
  });

  const setLive = (next: boolean): void => {
    if (live === next) return;
    live = next;
    onLive(next);
  };

  const own = options.own;
  if (own !== undefined && !CHANNEL.test(own.channel))
    throw new TypeError(`startQueueWake: bad channel ${own.channel}`);

  const onNotification = (message: WakeNotification): void => {
    if (own !== undefined && message.channel === own.channel)
      return own.heard(message.payload ?? '');
    if (message.channel === sweepChannel) return onSweep(message.payload ?? '', sweepAfterMs);
    if (message.channel !== channel) return;
    const payload = message.payload ?? '';
    if (probe !== undefined && payload === probe.token) return probe.settle(true);
    // a probe of another process (or a late one of ours) names no queue
    if (payload.startsWith('probe/')) return;
    onWake(payload, sweepAfterMs);
  };

  const drop = (current: WakeSession, error: Error | undefined): void => {
    if (session !== current) return; // a session we already let go
    session = undefined;
    probe?.settle(false);
    current.removeAllListeners('notification');
    current.end().catch(() => undefined);
    own?.lost();
    if (stopped) return;
    setLive(false);
    logger.log('warn', 'jobs.wake.lost', {
      error: error?.message ?? 'session ended',
      redialInMs: redialMs,
    });
    scheduleDial();
  };

  const scheduleDial = (): void => {
    if (redialTimer !== undefined) return;
    redialTimer = clock.setTimeout(() => {
      redialTimer = undefined;
      void open();
    }, redialMs);
    redialMs = Math.min(redialMs * 2, WAKE_REDIAL_MAX_MS);
  };

  /** Sends a probe through the pool and waits for it on the session: true when it came back in time. */
  const prove = (): Promise<boolean> =>
    new Promise<boolean>((resolve) => {
      const token = `probe/${randomUUID()}`;
      const settle = (ok: boolean): void => {
        if (probe?.token !== token) return;
        probe.timer.cancel();
        probe = undefined;
        resolve(ok);
      };
      probe = { token, timer: clock.setTimeout(() => settle(false), probeTimeoutMs), settle };
      options.executor
        .query('select pg_notify($1::text, $2::text)', [channel, token])
        .catch((error: unknown) => {
          logger.log('warn', 'jobs.wake.probe-failed', { error: String(error) });
          settle(false);
        });
    });

  const open = async (): Promise<void> => {
    if (stopped) return;
    let current: WakeSession | undefined;
    try {
      current = await dial();
      if (current === undefined) {
        logger.log('warn', 'jobs.wake.unverified', {
          reason: 'the session dropped and the listener given cannot be re-dialled',
          fix: 'pass startQueueWake a factory that dials a new pg.Client; jobs start on the 2 s poll meanwhile',
        });
        resolveReady(false);
        return;
      }
      const mine = current;
      session = mine;
      mine.on('notification', onNotification);
      mine.on('error', (error) => drop(mine, error));
      mine.on('end', () => drop(mine, undefined));
      await connectSession(mine);
      await mine.query(`listen ${channel}`);
      if (sweepChannel !== undefined) await mine.query(`listen ${sweepChannel}`);
      if (own !== undefined) await mine.query(`listen ${own.channel}`);
    } catch (error) {
      const reason = error instanceof Error ? error : new Error(String(error));
      if (current === undefined) {
        // the factory threw: nothing to let go, dial again
        if (!stopped) {
          logger.log('warn', 'jobs.wake.lost', { error: reason.message, redialInMs: redialMs });
          scheduleDial();
        }
      } else {
        drop(current, reason); // a no-op when its error event already dropped it
      }
      resolveReady(false);
      return;
    }
    if (stopped || session !== current) return;
    const proven = await prove();
    if (stopped || session !== current) return;
    if (proven) {
      redialMs = firstRedialMs;
      logger.log('info', 'jobs.wake.live', { channel });
      setLive(true);
      // only on a proven session: a LISTEN that hears nothing (a transaction-pooling proxy) must register nothing
      await own?.opened(current).catch((error: unknown) =>
        logger.log('warn', 'jobs.wake.own-open-failed', {
          channel: own.channel,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    } else if (!warnedUnverified) {
      warnedUnverified = true;
      logger.log('warn', 'jobs.wake.unverified', {
        channel,
        probeTimeoutMs,
        fix:
          'give the worker a direct or session-pooled DATABASE_URL (not PgBouncer pool_mode = transaction): ' +
          'a LISTEN there hears nothing. Jobs other processes enqueue start on the 2 s poll meanwhile.',
      });
    }
    resolveReady(proven);
  };

  void open();

  return {
    live: () => live,
    ready: () => ready,
    async stop() {
      if (stopped) return;
      stopped = true;
      redialTimer?.cancel();
      probe?.settle(false);
      setLive(false);
      const current = session;
      session = undefined;
      resolveReady(false);
      if (current !== undefined) {
        current.removeAllListeners('notification');
        await current.end().catch(() => undefined);
      }
    },
  };
}
