import type { EnqueueRequest } from '../driver/job-driver';
import type { PurgeTarget, ResolvedRetention } from '../driver/retention';
import { InvariantError } from '../errors/runtime-errors';
import type { JobsLogger } from '../util/logger';

/** One staged request a relay claimed, with the lease that makes it this relay's to publish. */
export interface OutboxRecord {
  /** The row id, which IS the job id (`request.id`): a republish meets the job the first publish made. */
  readonly id: string;
  /** The request as it was staged. */
  readonly request: EnqueueRequest;
  /** When it was staged (epoch ms). Rows are claimed in `stagedAt, id` order. */
  readonly stagedAt: number;
  /** The claimant token this claim stamped: the fence every later mutation of the row matches on. */
  readonly claimedBy: string;
  /** When the lease began (epoch ms): the row is claimable again once `claimedAt + leaseMs` has passed. */
  readonly claimedAt: number;
  /** How many publishes of this row failed so far. */
  readonly attempts: number;
  /**
   * The transaction that staged it: equal on the rows one transaction staged, distinct across transactions. A relay
   * that cannot publish a row holds back the rest of ITS transaction only.
   */
  readonly txKey: string;
}

/**
 * Why a row is quarantined: `X_OUTBOX_QUARANTINED`, its own publish failed its last try; `X_OUTBOX_HELD_BEHIND`, an
 * earlier row of its transaction is quarantined, and it must not publish without it.
 */
export type OutboxQuarantineCode = 'X_OUTBOX_QUARANTINED' | 'X_OUTBOX_HELD_BEHIND';

/** A staged row out of every claim until an operator restores it ({@link OutboxStore.restore}). */
export interface QuarantinedOutboxRecord {
  /** The staged row's id. */
  readonly id: string;
  /** The request as it was staged. */
  readonly request: EnqueueRequest;
  /** When it was staged (epoch ms). */
  readonly stagedAt: number;
  /** When it was quarantined (epoch ms). */
  readonly quarantinedAt: number;
  /** Why: out of tries, or held behind a row of its transaction that was. */
  readonly code: OutboxQuarantineCode;
  /** Publishes of this row that failed (0 for a row held behind another). */
  readonly attempts: number;
  /** The last publish error, rendered; for a row held behind another, which row holds it. */
  readonly error: string | null;
}

/** Most rows one {@link OutboxStore.quarantined} answers (1,000); the default is 100. */
export const MAX_QUARANTINED_PAGE = 1_000;

/** The page size of a {@link OutboxStore.quarantined} call: a whole number in 1..1,000, else `X_INVARIANT`. */
export function quarantinedPageLimit(limit: number = 100): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_QUARANTINED_PAGE) {
    throw new InvariantError(
      `outbox quarantined(): limit must be a whole number from 1 to ${MAX_QUARANTINED_PAGE}, not ${String(limit)}.`,
      'Page through with a limit in range.',
    );
  }
  return limit;
}

/** The relay's backlog at one moment ({@link OutboxStore.backlog}). */
export interface OutboxBacklog {
  /** Rows staged (committed) and not yet published, claimed or not; quarantined rows are not in it. */
  readonly count: number;
  /** When the oldest of them was staged (epoch ms on the store's clock), or `null` when there are none. */
  readonly oldestStagedAt: number | null;
  /**
   * How long the oldest of them has waited, in ms (0 when there are none), measured on the clock that stamped
   * `stagedAt` — the database's for PostgreSQL — so a skew between the app and the database never reads as lag.
   */
  readonly oldestAgeMs: number;
}

/** Options of one {@link OutboxStore.claim}. */
export interface OutboxClaimOptions {
  /** The token stamped on every row claimed; `markPublished` and `release` must present it. */
  readonly claimant: string;
  /** At most this many rows. */
  readonly limit: number;
  /** How long a claimed row stays out of other claims (a relay that died mid-batch strands it this long). */
  readonly leaseMs: number;
}

/** The publish that stopped a batch: recorded on its row when the batch is released. */
export interface OutboxPublishFailure {
  /** The staged row whose publish failed. */
  readonly id: string;
  /** The publish error, rendered. */
  readonly error: string;
}

/**
 * Where the transactional outbox keeps staged requests until a relay publishes them. Implementations:
 * `memoryOutboxStore` (tests, single-process apps) and `postgresOutboxStore` (`@ultimat3/jobs-pg`). Both pass
 * `outboxStoreConformance`.
 *
 * Ordering: `claim()` answers rows in `stagedAt, id` order, and never a row staged in the same transaction AFTER an
 * unpublished row it does not also answer — so two relays cannot publish one transaction's rows out of order.
 *
 * Fencing: every mutation after the claim (`markPublished`, `release`) matches on the claimant, so a relay that stalled
 * past its lease and lost its rows to another relay changes nothing.
 */
export interface OutboxStore {
  /**
   * Stages one request in `tx` — the caller's transaction, on the caller's connection — so it commits or rolls back
   * with the caller's writes. Without `tx` it is written on its own (committed at once). A `tx` the store cannot write
   * on is `X_OUTBOX_NO_TX`, never a silent write elsewhere.
   */
  stage(request: EnqueueRequest, tx?: unknown): Promise<void>;
  /**
   * Stages many requests in ONE write in `tx`, exactly as `stage` stages one: all or none, in the order given (the
   * relay publishes them in that order, as rows one transaction staged one by one). An empty list writes nothing.
   */
  stageMany(requests: readonly EnqueueRequest[], tx?: unknown): Promise<void>;
  /**
   * Claims committed, unpublished rows whose lease is free or lapsed, stamping `claimedAt`/`claimedBy` in the same
   * step that selects them: a lease, not a read.
   */
  claim(options: OutboxClaimOptions): Promise<readonly OutboxRecord[]>;
  /** Retires published rows. Fenced: only rows `claimant` still holds. Answers how many were retired. */
  markPublished(ids: readonly string[], claimant: string): Promise<number>;
  /**
   * Hands claimed rows back at once (a failed publish stopped the batch). Fenced: only rows `claimant` still holds.
   * `failure` is recorded on its row (attempts + 1, the error). Answers how many were released.
   */
  release(
    ids: readonly string[],
    claimant: string,
    failure?: OutboxPublishFailure,
  ): Promise<number>;
  /**
   * Takes a row out of every claim for good: the relay could not publish it in its tries. Fenced: only a row
   * `claimant` still holds. `error` (the last publish error) is recorded with `X_OUTBOX_QUARANTINED` and the attempt
   * counted; every unpublished row its transaction staged AFTER it goes with it as `X_OUTBOX_HELD_BEHIND`, so a
   * transaction's later rows never publish without its earlier ones. Answers the ids quarantined, the row first (none
   * when the fence missed).
   */
  quarantine(id: string, claimant: string, error: string): Promise<readonly string[]>;
  /** Quarantined rows, oldest quarantine first, at most `limit` (default 100, at most {@link MAX_QUARANTINED_PAGE}). */
  quarantined(limit?: number): Promise<readonly QuarantinedOutboxRecord[]>;
  /**
   * Puts quarantined rows back in the claim with their attempts reset (the operator fixed the cause). A row still
   * waits behind an earlier row of its transaction that stays quarantined. Answers how many were restored.
   */
  restore(ids: readonly string[]): Promise<number>;
  /** How many rows are staged and not yet published: the relay's backlog. Quarantined rows are not in it. */
  retained(): Promise<number>;
  /**
   * The relay's backlog in one read: how many rows {@link retained} counts and the age of the oldest of them (what
   * `outbox_lag_seconds` and the health check's `outbox.maxLagMs` read).
   */
  backlog(): Promise<OutboxBacklog>;
  /**
   * Starts the relay's cross-process wake on the store's own database, when the store has one (PostgreSQL: a proven
   * LISTEN on `x_outbox_wake`): `onWake` per committed staging, `onLive` when the wake is proven and when it is lost.
   * `OutboxModule` prefers it to the job backend's, so a relay publishing onto Redis is woken by commits in
   * PostgreSQL. Answers its stop. The relay's poll stays the guarantee.
   */
  startWake?(
    onWake: () => void,
    logger: JobsLogger,
    onLive?: (live: boolean) => void,
  ): { stop(): Promise<void> };
  /**
   * The store's published rows as a retention target, when it keeps them (PostgreSQL: `x_outbox`'s audit trail): the
   * rows published more than `policy.finishedMs` ago. `JobsModule`'s sweep runs it beside the driver's own targets
   * unless the driver already sweeps a target of the same name (the `'postgres'` driver sweeps its `x_outbox`), so
   * the outbox of an app whose jobs live elsewhere (`driver: 'redis'`) is swept too.
   */
  purgeTarget?(policy: ResolvedRetention): PurgeTarget;
}
