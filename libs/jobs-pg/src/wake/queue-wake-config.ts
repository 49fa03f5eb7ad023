import {
  InvariantError,
  silentLogger,
  systemClock,
  type Clock,
  type JobsLogger,
} from '@ultimat3/jobs';
import type { PgExecutor } from '../executor/pg-executor';
import {
  dialler,
  WAKE_CHANNEL,
  WAKE_SWEEP_CHANNEL,
  WAKE_SWEEP_MS,
  type WakeSession,
} from './wake-session';
import type { OwnChannel, StartQueueWakeOptions } from './queue-wake-options';

/** A channel name a LISTEN may splice in: a plain lower-case identifier, at most 63 bytes. */
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/** How long a probe may take to come back on the session before the wake is reported unverified. */
export const WAKE_PROBE_TIMEOUT_MS = 3_000;
/** The first wait before re-dialling a dropped session; it doubles up to {@link WAKE_REDIAL_MAX_MS}. */
export const WAKE_REDIAL_MS = 500;
/** The longest wait between two dials. */
export const WAKE_REDIAL_MAX_MS = 30_000;
/**
 * The longest a session's graceful end (the Terminate message, then the server's close) is awaited before its socket
 * is destroyed: a server behind a partition never answers the goodbye, and a stop must not wait on it.
 */
export const WAKE_END_MS = 1_000;

/** The options of `startQueueWake`, checked, with every default filled in and the listener turned into a dialler. */
export interface QueueWakeConfig {
  readonly onWake: (queue: string, sweepAfterMs: number) => void;
  readonly onSweep: (queue: string, sweepAfterMs: number) => void;
  readonly sweepAfterMs: number;
  readonly onLive: (live: boolean) => void;
  readonly logger: JobsLogger;
  readonly clock: Clock;
  readonly probeTimeoutMs: number;
  readonly channel: string;
  readonly sweepChannel: string | undefined;
  readonly firstRedialMs: number;
  readonly dial: () => Promise<WakeSession | undefined>;
  readonly own: OwnChannel | undefined;
  readonly executor: PgExecutor;
}

/** A channel a LISTEN cannot splice in, refused. */
function badChannel(channel: string): InvariantError {
  return new InvariantError(
    `startQueueWake: bad channel ${channel}.`,
    'Name a channel as a plain lower-case identifier: letters, digits and _, at most 63 bytes.',
  );
}

/**
 * Checks `options` and fills in their defaults: `onWake`, `onSweep` and `onLive` from the target, the jobs' wake
 * channel and (beside it only) its sweep channel. Throws `X_INVARIANT` when there is nothing to wake or a channel is
 * not a plain identifier.
 */
export function queueWakeConfig(options: StartQueueWakeOptions): QueueWakeConfig {
  const onWake = options.onWake ?? options.target?.signalEnqueued.bind(options.target);
  if (onWake === undefined) {
    throw new InvariantError(
      'startQueueWake: pass onWake or target.',
      'Pass the worker as target, or an onWake(queue) callback.',
    );
  }
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
  if (!CHANNEL.test(channel)) throw badChannel(channel);
  const sweepChannel =
    options.sweepChannel ?? (channel === WAKE_CHANNEL ? WAKE_SWEEP_CHANNEL : undefined);
  if (sweepChannel !== undefined && !CHANNEL.test(sweepChannel)) throw badChannel(sweepChannel);
  const firstRedialMs = options.redialMs ?? WAKE_REDIAL_MS;
  const dial = dialler(options.listener);
  const own = options.own;
  if (own !== undefined && !CHANNEL.test(own.channel)) throw badChannel(own.channel);
  return {
    onWake,
    onSweep,
    sweepAfterMs,
    onLive,
    logger,
    clock,
    probeTimeoutMs,
    channel,
    sweepChannel,
    firstRedialMs,
    dial,
    own,
    executor: options.executor,
  };
}
