import type { JobDriver } from '../driver/job-driver';
import type { JobRegistry } from '../registry/job-registry';
import type { Clock } from '../util/clock';
import type { JobsLogger } from '../util/logger';
import type { EventBus } from '../events/event-bus';
import type { JobMetrics } from '../runtime/metrics';
import type { LimitConfig } from './limits';
import { InvariantError } from '../errors/runtime-errors';
import { MIN_HEARTBEAT_INTERVAL_MS, MIN_VISIBILITY_TIMEOUT_MS } from '../values/bounds';

/** The default number of concurrent runs per queue. */
export const JOBS_CONCURRENCY_DEFAULT = 8;
/** The default lease a claim buys. */
export const DEFAULT_VISIBILITY_TIMEOUT_MS = 30_000;
/** The claim interval while there is work. */
export const POLL_INTERVAL_MS = 250;
/** The idle ceiling without a proven wake. */
export const IDLE_POLL_CEILING_MS = 2_000;
/** The idle ceiling while a proven wake (LISTEN/NOTIFY) is live. */
export const WOKEN_IDLE_POLL_CEILING_MS = 5_000;
/** A row due within this long gets a timer, so it starts on time without a poll. */
export const DUE_TIMER_HORIZON_MS = 60_000;

/**
 * Checks a worker's timings, or `X_INVARIANT` naming the field: whole ms; a visibility timeout of at least 1 s (a
 * shorter lease lapses while the body still runs and another worker starts it again — with 2 ms, a 400 ms body was
 * started 5 times at once); a heartbeat of at least 100 ms and at most half the visibility timeout, so one late beat
 * never loses the lease; a poll interval above 0.
 */
export function assertWorkerTimings(
  visibilityTimeoutMs: number,
  heartbeatIntervalMs: number,
  pollIntervalMs: number,
): void {
  const rules: [string, number, number][] = [
    ['visibilityTimeoutMs', visibilityTimeoutMs, MIN_VISIBILITY_TIMEOUT_MS],
    ['heartbeatIntervalMs', heartbeatIntervalMs, MIN_HEARTBEAT_INTERVAL_MS],
    ['pollIntervalMs', pollIntervalMs, 1],
  ];
  for (const [field, v, min] of rules) {
    if (!Number.isInteger(v) || v < min)
      throw new InvariantError(
        `jobWorker: ${field} must be a whole number of ms of at least ${min} (got ${v}).`,
      );
  }
  if (heartbeatIntervalMs * 2 > visibilityTimeoutMs) {
    throw new InvariantError(
      `jobWorker: heartbeatIntervalMs (${heartbeatIntervalMs}) must be at most half of visibilityTimeoutMs (${visibilityTimeoutMs}).`,
    );
  }
}

/** Options of `jobWorker()`. Only `driver` and `registry` are required. */
export interface JobWorkerOptions {
  /** The driver to claim from and settle through. */
  readonly driver: JobDriver;
  /** The jobs this worker can run, with their bodies. */
  readonly registry: JobRegistry;
  /** The queues to serve (default: every queue a registered job names). */
  readonly queues?: readonly string[];
  /** Concurrent runs: one number for every queue, or a table per queue (default 8). */
  readonly concurrency?: number | Readonly<Record<string, number>>;
  /** How long a claim stays invisible without a heartbeat (default 30 s). */
  readonly visibilityTimeoutMs?: number;
  /** How often a held run's lease is renewed (default a third of the visibility timeout). */
  readonly heartbeatIntervalMs?: number;
  /** The claim interval while there is work (default 250 ms). */
  readonly pollIntervalMs?: number;
  /** The idle ceiling the wait doubles up to (default 2 s; 5 s while a proven wake is live). */
  readonly idlePollMaxMs?: number;
  /** The worker id (default a random one per process). */
  readonly workerId?: string;
  /** The time source (default the system clock). */
  readonly clock?: Clock;
  /** Where the worker logs (default a silent logger). */
  readonly logger?: JobsLogger;
  /** The event bus `step.waitForEvent` reads (default a memory bus on this worker's clock). */
  readonly events?: EventBus;
  /** Counters and gauges (default none). */
  readonly metrics?: JobMetrics;
  /**
   * Claim ahead of the free slots while busy (default true): as many rows as the measured rate starts within ~50 ms
   * (at most 100 per slot and 1,000 per queue), handed back uncounted when they wait longer than
   * the heartbeat interval or the worker drains. It is what lets one process drain ~20,000 no-op jobs a second; claiming
   * only for free slots manages ~2,300 on the same machine. The price: rows held by a worker that is SIGKILLed lapse after
   * the visibility timeout as a counted attempt without having run, as its runs in flight do — but never a final one:
   * the claim takes ahead only rows it does not put on their final attempt (`ClaimSlot.ahead`), so a crash buries no
   * job dead that did not run. `false` claims only for free slots.
   */
  readonly claimAhead?: boolean;
  /** Per-process caps (a per-pod budget; `job.concurrency` is the fleet-wide one). Over a cap a claim is handed back. */
  readonly limits?: LimitConfig;
}

/** What a worker has done since it started. */
export interface WorkerStats {
  /** Rows claimed and taken into a run. */
  readonly claimed: number;
  /** Attempts that completed. */
  readonly completed: number;
  /** Failed attempts scheduled to retry. */
  readonly retried: number;
  /** Runs that stopped for good and went `dead`. */
  readonly deadLettered: number;
  /** Runs that stopped for good and settled `failed` (`retry.deadLetter: false`). */
  readonly dropped: number;
  /** Attempts that parked the run (a `step.sleep` or `step.waitForEvent`). */
  readonly suspended: number;
  /** Attempts a drain aborted and handed back, uncounted. */
  readonly interrupted: number;
  /** Runs settled failed with `X_JOB_KEY_BUSY` by a `whenBusy: 'fail'` cap, their body never run. */
  readonly refused: number;
  /** Claims handed straight back by a cap (per-process limits or a fleet slot), uncounted. */
  readonly deferred: number;
  /** Runs under way now. */
  readonly inFlight: number;
  /** Claim statements issued. */
  readonly claims: number;
  /** Held runs whose lease was lost (the heartbeat could not renew it). */
  readonly leasesLost: number;
  /** When the claim loop last ran a pass (epoch ms, this worker's clock; its start before the first; 0 unstarted). */
  readonly lastPassAt: number;
  /** Whether a proven cross-process wake is live ({@link JobWorker.setWakeLive}); false while it only polls. */
  readonly wakeLive: boolean;
  /** Run slots over every served queue (the sum of its concurrency); `inFlight` of them are busy. */
  readonly slots: number;
}

/** A running worker. */
export interface JobWorker {
  /** The worker id its claims and registry row carry. */
  readonly id: string;
  /** Starts claiming. Refuses unbound jobs (`X_JOB_UNBOUND`) and unenforceable concurrency. */
  start(): Promise<void>;
  /**
   * The wake: a row of `queue` landed; a pass runs now (a queue this worker does not serve is ignored). A wake whose
   * announcement also stands for rows other transactions commit shortly after it (the PostgreSQL wake announces one row
   * per queue per 5 ms slot) passes `sweepAfterMs`: one more pass runs that long after the latest such wake.
   */
  signalEnqueued(queue: string, sweepAfterMs?: number): void;
  /**
   * A sweep alone: rows of `queue` may commit within `sweepAfterMs`, and none is waiting for a pass now (the row that
   * announced them was handed to a worker with it). One pass runs `sweepAfterMs` from now — never pushed out by later
   * signals — and none at once; a queue this worker does not serve is ignored.
   */
  signalSweep(queue: string, sweepAfterMs: number): void;
  /** Tells a proven external wake is live (raises the idle ceiling) or lost. */
  setWakeLive(live: boolean): void;
  /**
   * The drain's accept phase: stop claiming and abort every held run's signal with `X_DRAINING`. Returns at once.
   * `signal` names the cause (`SIGTERM`).
   */
  beginDrain(signal?: string): void;
  /**
   * Stops claiming and waits for in-flight runs. Without a deadline it waits as long as they take (a manual stop aborts
   * nothing). With `deadlineAt` (this worker's clock) it stops waiting there and logs `jobs.worker.drain-abandoned`.
   */
  stop(deadlineAt?: number): Promise<void>;
  /** What the worker has done since it started. */
  stats(): WorkerStats;
}
