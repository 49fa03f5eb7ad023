import type { BackendWakeTarget, Clock, JobsLogger } from '@ultimat3/jobs';
import type { PgExecutor } from '../executor/pg-executor';
import type { WakeListener, WakeSession } from './wake-session';

/**
 * What a wake drives: a worker (`jobWorker()`), or anything with the same members — a backend's wake target
 * (`signalEnqueued`, the optional `signalSweep`, `setWakeLive`) without its hand-off side. A target without
 * `signalSweep` is told `signalEnqueued` for a sweep alone (a pass now as well, which finds nothing more).
 */
export type WakeTarget = Omit<BackendWakeTarget, 'handOff'>;

/** Options of `startQueueWake`. */
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
   * Told each queue a handed enqueue announced on the sweep channel (default: `target.signalSweep` when no `onWake` is given, else `onWake`):
   * pass `sweepAfterMs` later, not now.
   */
  readonly onSweep?: (queue: string, sweepAfterMs: number) => void;
  /** The `sweepAfterMs` each wake carries (default `WAKE_SWEEP_MS`: the 5 ms slot and a 10 ms commit margin). */
  readonly sweepAfterMs?: number;
  /** Told when the wake is proven live, and when it is lost (default `target.setWakeLive`). */
  readonly onLive?: (live: boolean) => void;
  /** The worker to drive: its `signalEnqueued` and `setWakeLive` are the defaults of `onWake` and `onLive`. */
  readonly target?: WakeTarget;
  /** Where the wake logs (default a silent logger). */
  readonly logger?: JobsLogger;
  /** The clock the wake's timers run on (default the system clock). */
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
   * `WAKE_SWEEP_CHANNEL` when `channel` is the jobs' wake, none otherwise).
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
  /** The channel to LISTEN on. */
  readonly channel: string;
  /** Runs on the session once its probe came back; a failure is logged and the wake stays. */
  opened(session: WakeSession): Promise<void>;
  /** Told each payload heard on the channel. */
  heard(payload: string): void;
  /** Told each time the session drops. */
  lost(): void;
}

/** A running wake. */
export interface QueueWake {
  /** Whether the current session is proven: a probe sent through the executor came back on it. */
  live(): boolean;
  /** Resolves once the first probe came back (true) or timed out / the dial failed (false). */
  ready(): Promise<boolean>;
  /**
   * Ends the session; no re-dial follows. Idempotent: every call answers the same stop. A server that does not answer
   * the goodbye (a partition) holds it at most `WAKE_END_MS` of the wake's clock: its socket is destroyed then.
   */
  stop(): Promise<void>;
}
