import { randomUUID } from 'node:crypto';
import { MAX_QUEUE_NAME_LENGTH, silentLogger, systemClock, type TimerHandle } from '@ultimat3/jobs';
import {
  connectSession,
  dialler,
  WAKE_CHANNEL,
  WAKE_SWEEP_CHANNEL,
  WAKE_SWEEP_MS,
  type WakeNotification,
  type WakeSession,
} from './wake-session';
import type { QueueWake, StartQueueWakeOptions } from './queue-wake-options';

export type {
  OwnChannel,
  QueueWake,
  StartQueueWakeOptions,
  WakeTarget,
} from './queue-wake-options';

/**
 * A fresh probe payload: `probe/` and two random UUIDs, 78 characters — longer than any queue name
 * (`MAX_QUEUE_NAME_LENGTH`, 63), so a listener tells it from every queue's wake by its length alone.
 */
const probeToken = (): string => `probe/${randomUUID()}${randomUUID()}`;

/** A channel name a LISTEN may splice in: a plain lower-case identifier, at most 63 bytes. */
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/** How long a probe may take to come back on the session before the wake is reported unverified. */
export const WAKE_PROBE_TIMEOUT_MS = 3_000;
/** The first wait before re-dialling a dropped session; it doubles up to {@link WAKE_REDIAL_MAX_MS}. */
export const WAKE_REDIAL_MS = 500;
/** The longest wait between two dials. */
export const WAKE_REDIAL_MAX_MS = 30_000;

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
    // a probe of another process (or a late one of ours) is longer than any queue name: a queue may be named
    // `probe/…`, and must be woken all the same
    if (payload.length > MAX_QUEUE_NAME_LENGTH) return;
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
      const token = probeToken();
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
