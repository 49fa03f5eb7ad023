import type { BackfillLedger } from '../backfill/ledger';
import type { EventBus } from '../events/event-bus';
import type { SchedulerState } from '../scheduler/scheduler-state';
import type { JobsLogger } from '../util/logger';
import type { JobDriver } from './job-driver';
import type { ClaimedJob } from './job-row';

/**
 * What a backend can do beyond the operations every driver has (enqueue, claim, ack, nack, heartbeat, progress,
 * stats, get). Each one is declared, never guessed from an object's shape: the module wires what is declared, and
 * `backendConformance` runs the suites each declared capability calls for and says which it skipped.
 */
export interface BackendCapabilities {
  /** Durable step results (`driver.steps` keeps them across processes): the steps suite. */
  readonly steps: boolean;
  /** A durable event bus (`backend.events`) that `step.waitForEvent` reads across processes: the event bus suites. */
  readonly events: boolean;
  /** A fleet lease store (`driver.leases`, what `concurrency` needs): the leases suite. */
  readonly leases: boolean;
  /** The operator surface (`driver.introspect`): the introspection, counters and operator value suites. */
  readonly introspection: boolean;
  /** Durable scheduler watermarks, fires and pauses (`backend.schedulerState`): the scheduler state suite. */
  readonly schedulerState: boolean;
  /**
   * The scheduler elects one leader through the backend (a lease in `driver.leases`), so several processes on it
   * agree. Needs `leases`; absent, a scheduler on it is always the leader (two pods would both fire).
   */
  readonly leader: boolean;
  /** A cross-process wake (`backend.startWake`): another process's enqueue reaches an idle worker before its poll. */
  readonly wake: boolean;
  /** Batched ack (`driver.ackMany`): many settles in one write. Without it a worker acks one run at a time. */
  readonly batchAck: boolean;
  /**
   * The hand-off (needs `wake`): `startWake` with a target that has a `handOff` side registers that worker while it
   * is idle, and an enqueue of a row due now with nothing ahead of it claims the row for it inside the enqueue (see
   * {@link WakeHandOff}): the hand-off suite.
   */
  readonly handOff: boolean;
}

/** The name of one {@link BackendCapabilities} entry. */
export type BackendCapability = keyof BackendCapabilities;

/** Every capability, in the order a report lists them. */
export const BACKEND_CAPABILITIES: readonly BackendCapability[] = [
  'steps',
  'events',
  'leases',
  'introspection',
  'schedulerState',
  'leader',
  'wake',
  'batchAck',
  'handOff',
];

/** What an idle worker can take of one queue it serves, for a backend that hands rows over ({@link WakeHandOff}). */
export interface HandOffOffer {
  /** The queue the offer is for. */
  readonly queue: string;
  /** Free slots of the queue no held row (nor a claim on the wire) covers. */
  readonly free: number;
  /** The job names the worker serves there (what its claims name). */
  readonly names: readonly string[];
}

/**
 * A worker's side of a hand-off (`BackendCapabilities.handOff`): a backend whose enqueue can claim a fresh row for an idle worker itself (Redis) asks
 * the worker what it can take ({@link WakeHandOff.offers}), registers it, and delivers the rows it claimed for it
 * ({@link WakeHandOff.takeClaimed}), which the worker runs exactly as its own claim's. Optional: a backend without a
 * hand-off (PostgreSQL, memory) never reads it, and a worker without one is only woken.
 */
export interface WakeHandOff {
  /** The worker's id: the claims made for it carry it, as its own claims do. */
  readonly workerId: string;
  /** The lease a claim made for it takes (its visibility timeout). */
  readonly visibilityTimeoutMs: number;
  /**
   * What the worker can take now, per served queue: the rows it could start at once (free slots no held row covers,
   * within its per-process caps for any tenant); empty while a claim of its own is on the wire or it no longer claims
   * (draining, stopped). Called right before each registration.
   */
  offers(): readonly HandOffOffer[];
  /**
   * Rows the backend claimed for this worker: placed and run as the rows its own claim answered — those it could not
   * start at once (a registration older than its own claim's rows) are handed back at once, uncounted.
   */
  takeClaimed(rows: readonly ClaimedJob[]): void;
  /** Calls `listener` whenever the worker went idle (a pass found nothing to claim); answers its removal. */
  onIdle(listener: () => void): () => void;
}

/** What a backend's wake drives: the worker's in-process wake and its idle ceiling. */
export interface BackendWakeTarget {
  /** A queue was announced; `sweepAfterMs`: pass once more that long after (a throttled wake's stragglers). */
  signalEnqueued(queue: string, sweepAfterMs?: number): void;
  /** Rows of `queue` may commit within `sweepAfterMs` and none waits now: pass once, that long after, not now. */
  signalSweep?(queue: string, sweepAfterMs: number): void;
  /** Tells whether the backend's proven cross-process wake is live (raises the idle ceiling) or lost. */
  setWakeLive(live: boolean): void;
  /** The worker's hand-off side, when it takes rows a backend claimed for it (see {@link WakeHandOff}). */
  readonly handOff?: WakeHandOff;
}

/**
 * A backend: a driver plus the capabilities it declares, and the members those capabilities name. What
 * `JobsModule.forRoot({ backend })` takes (`memoryBackend()`, `await postgresBackend(…)`, `await redisBackend(…)`),
 * what the operator tools open, and what `backendConformance` checks.
 */
export interface JobsBackend {
  /** A short name for logs (`memory`, `postgres`, `redis`): the driver's kind. */
  readonly kind: string;
  /** The driver every job row is read and written through. */
  readonly driver: JobDriver;
  /** What the backend declares it can do; each `true` is held to its conformance suites. */
  readonly capabilities: BackendCapabilities;
  /** The durable event bus: present exactly when `capabilities.events`. */
  readonly events?: EventBus;
  /** The durable scheduler state: present exactly when `capabilities.schedulerState`. */
  readonly schedulerState?: SchedulerState;
  /**
   * The `x_backfills` ledger `backfill()` passes record themselves in, where the backend keeps one. Absent, a pass
   * runs anyway with no bookkeeping (and nothing makes a second pass a no-op).
   */
  readonly backfills?: BackfillLedger;
  /**
   * Starts the cross-process wake for a worker (Postgres: one proven LISTEN session; Redis: one subscriber): present
   * exactly when `capabilities.wake`. Answers its stop. The poll stays the guarantee.
   */
  readonly startWake?: (target: BackendWakeTarget, logger: JobsLogger) => { stop(): Promise<void> };
  /**
   * Starts the outbox relay's cross-process wake (Postgres: LISTEN on `x_outbox_wake`), when the backend has one.
   * `onLive` is told when the wake is proven live and when it is lost (the relay's idle ceiling follows it).
   */
  readonly startOutboxWake?: (
    onWake: () => void,
    logger: JobsLogger,
    onLive?: (live: boolean) => void,
  ) => { stop(): Promise<void> };
  /** Closes what the backend opened (a pool, a client) — after the driver. Idempotent. */
  close(): Promise<void>;
}

/**
 * The capabilities a bare driver shows by its members, for a driver handed over without a backend (sugar such as
 * `forRoot({ driver: instance })` or `jobDriverConformance`): steps always, leases / introspection / batch ack when
 * the member is there, nothing that lives outside the driver (events, scheduler state, wake), and a leader when it
 * has leases.
 */
export function driverCapabilities(driver: JobDriver): BackendCapabilities {
  const leases = driver.leases !== undefined;
  return {
    steps: true,
    events: false,
    leases,
    introspection: driver.introspect !== undefined,
    schedulerState: false,
    leader: leases,
    wake: false,
    batchAck: driver.ackMany !== undefined,
    handOff: false,
  };
}

/** A backend of a bare driver: {@link driverCapabilities}, closing nothing of its own. */
export function driverBackend(driver: JobDriver): JobsBackend {
  return {
    kind: driver.kind,
    driver,
    capabilities: driverCapabilities(driver),
    close: () => Promise.resolve(),
  };
}
