import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { JobDriver } from '../../driver/job-driver';
import { InvariantError } from '../../errors/runtime-errors';
import { systemClock, type Clock } from '../../util/clock';
import { silentLogger, type JobsLogger } from '../../util/logger';
import type { OutboxStore } from '../outbox-store';

/** The pass interval while there is work, and the first idle wait (200 ms). */
export const OUTBOX_RELAY_INTERVAL_MS = 200;
/** The idle ceiling the wait doubles up to without a wake (2 s): 30 claims per idle minute. */
export const OUTBOX_RELAY_IDLE_POLL_MAX_MS = 2_000;
/**
 * The idle ceiling while a proven wake is live (5 s): 12 claims per idle minute, the worker's figure. A commit in
 * another process reaches the relay through the wake at once, so the poll is only the guarantee behind it.
 */
export const OUTBOX_RELAY_WOKEN_IDLE_POLL_MAX_MS = 5_000;
/** Rows per claim (100). */
export const OUTBOX_RELAY_BATCH = 100;
/** How long a claimed row stays the claimant's before any relay may take it again (30 s). */
export const OUTBOX_CLAIM_LEASE_MS = 30_000;
/**
 * How many times the relay tries to publish one staged row before it quarantines it (5): one try per pass, a pass
 * every `intervalMs` after a failure, so about a second at the default interval. A database out of reach counts no
 * try (see `relayPass`).
 */
export const OUTBOX_PUBLISH_ATTEMPTS = 5;

/** Test seams: where a fault can be injected into a pass. */
export interface OutboxRelayFaults {
  /**
   * Runs after a batch's publishes landed and before `markPublished`. Throwing here plays a relay killed between the
   * two: nothing is marked or released, so the rows wait out their lease and the next relay republishes them.
   */
  afterPublish?(ids: readonly string[]): void | Promise<void>;
}

/** Options of `outboxRelay()`. Only `store` and `driver` are required. */
export interface OutboxRelayOptions {
  /** Where staged rows are claimed from. */
  readonly store: OutboxStore;
  /** Where rows are published: each under its staged id (`driver.enqueue(record.request)`). */
  readonly driver: JobDriver;
  /** The time source (default the system clock). */
  readonly clock?: Clock;
  /** Where the relay logs (default a silent logger). */
  readonly logger?: JobsLogger;
  /** The pass interval after a failure, and the first idle wait (default 200 ms). */
  readonly intervalMs?: number;
  /**
   * The idle ceiling the wait doubles up to (default 2 000 ms; 5 000 ms while `setWakeLive(true)` says a proven wake
   * is live). Declared, it is the ceiling either way.
   */
  readonly idlePollMaxMs?: number;
  /** Rows per claim (default 100). */
  readonly batch?: number;
  /** The claim's lease: a positive whole number of ms (default 30 000); anything else is `X_INVARIANT`. */
  readonly claimLeaseMs?: number;
  /**
   * Tries to publish one row before it is quarantined, with the rows its transaction staged after it (default 5): a
   * positive whole number; anything else is `X_INVARIANT`.
   */
  readonly maxPublishAttempts?: number;
  /** The token this relay stamps on what it claims (default `host:pid:random`). Unique per relay. */
  readonly claimant?: string;
  /** Told the queue of every job a pass created (the in-process wake of a worker in this process). */
  readonly onPublished?: (queue: string) => void;
  /** Fault injection for tests. */
  readonly faults?: OutboxRelayFaults;
}

/** The options with every default filled in and checked. */
export interface ResolvedRelayOptions {
  /** Where staged rows are claimed from. */
  readonly store: OutboxStore;
  /** Where rows are published. */
  readonly driver: JobDriver;
  /** The time source. */
  readonly clock: Clock;
  /** Where the relay logs. */
  readonly logger: JobsLogger;
  /** The pass interval after a failure, and the first idle wait. */
  readonly intervalMs: number;
  /** The declared ceiling, or `undefined` for the default that follows the wake. See `idleCeilingMs` (relay-loop.ts). */
  readonly idlePollMaxMs: number | undefined;
  /** Rows per claim. */
  readonly batch: number;
  /** The claim's lease, in ms. */
  readonly claimLeaseMs: number;
  /** Tries to publish one row before it is quarantined. */
  readonly maxPublishAttempts: number;
  /** The token stamped on what this relay claims. */
  readonly claimant: string;
  /** Told the queue of every job a pass created. */
  readonly onPublished: ((queue: string) => void) | undefined;
  /** Fault injection for tests. */
  readonly faults: OutboxRelayFaults | undefined;
}

function wholePositive(field: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) {
    throw new InvariantError(
      `outboxRelay(): ${field} must be a positive whole number, not ${String(value)}.`,
      `Pass ${field} as a whole number greater than 0, or leave it out for the default.`,
    );
  }
  return value;
}

/**
 * Checks `outboxRelay()` options: every duration, the batch and `maxPublishAttempts` a positive whole number, else
 * `X_INVARIANT`.
 */
export function resolveRelayOptions(options: OutboxRelayOptions): ResolvedRelayOptions {
  if (typeof options !== 'object' || options === null || !options.store || !options.driver) {
    throw new InvariantError('outboxRelay() needs { store, driver }.');
  }
  const intervalMs = wholePositive('intervalMs', options.intervalMs ?? OUTBOX_RELAY_INTERVAL_MS);
  const idlePollMaxMs =
    options.idlePollMaxMs === undefined
      ? undefined
      : wholePositive('idlePollMaxMs', options.idlePollMaxMs);
  if (idlePollMaxMs !== undefined && idlePollMaxMs < intervalMs) {
    throw new InvariantError(
      `outboxRelay(): idlePollMaxMs (${idlePollMaxMs}) is below intervalMs (${intervalMs}).`,
    );
  }
  const claimant = options.claimant ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  if (typeof claimant !== 'string' || claimant.length === 0) {
    throw new InvariantError('outboxRelay(): claimant must be a non-empty string.');
  }
  return {
    store: options.store,
    driver: options.driver,
    clock: options.clock ?? systemClock,
    logger: options.logger ?? silentLogger,
    intervalMs,
    idlePollMaxMs,
    batch: wholePositive('batch', options.batch ?? OUTBOX_RELAY_BATCH),
    claimLeaseMs: wholePositive('claimLeaseMs', options.claimLeaseMs ?? OUTBOX_CLAIM_LEASE_MS),
    maxPublishAttempts: wholePositive(
      'maxPublishAttempts',
      options.maxPublishAttempts ?? OUTBOX_PUBLISH_ATTEMPTS,
    ),
    claimant,
    onPublished: options.onPublished,
    faults: options.faults,
  };
}
