import type { BackfillRuntime } from '../backfill/backfill-runtime';
import type { BackfillSource } from '../backfill/keyset-source';
import type { Clock } from '../util/clock';
import type { Duration } from '../util/duration';
import type { JobRunContext, JobSettled } from './run-args';
import type { RetryPolicy } from './retry-policy';

/** What `source` and `count` receive: the run's context (its actor carries the pass's tenant). */
export interface BackfillSourceArgs {
  /** The run's context; its actor carries the pass's tenant. */
  readonly ctx: JobRunContext;
}

/**
 * What `handle` receives for one page. No step: a step named inside it would collide with itself on the next page
 * (`X_STEP_DUPLICATE`). It runs AT LEAST once per page — an attempt cancelled between the last row and the checkpoint
 * hands the page again — so write idempotently (an upsert, an update to a value), never `count + 1`.
 */
export interface BackfillHandleArgs<T> {
  /** The page of rows to handle, in key order. */
  readonly rows: readonly T[];
  /** The run's cancellation composed with the page's own ceiling (`stepTimeout`): hand it to what the body calls. */
  readonly signal: AbortSignal;
  /** The run's context; its actor carries the pass's tenant. */
  readonly ctx: JobRunContext;
}

/** What `backfill()` takes. */
export interface BackfillDefinition<T> {
  /** REQUIRED: the durable key — the job's name, its idempotency key, and the ledger's name for the sweep. */
  readonly name: string;
  /** Rows per statement and per step (default 1,000): a whole number from 1 to 100,000. */
  readonly batch?: number;
  /** Batches per second (default 5; fractions allowed). There is no unthrottled mode: raise it to go faster. */
  readonly rate?: number;
  /**
   * REQUIRED, as on `job()`: `() => orgId` scopes every page to one org; `'none'` sweeps every tenant, and the pass
   * opens that cross-tenant scope itself (the source is a lazy chain: the author has nothing to wrap).
   */
  readonly tenant: 'none' | (() => string);
  /** The rows to sweep: a TypeORM `SelectQueryBuilder`, or `{ repository, where }`. Built anew for every page. */
  readonly source: (args: BackfillSourceArgs) => BackfillSource<T>;
  /** Does the work for one page of rows. */
  readonly handle: (args: BackfillHandleArgs<T>) => void | Promise<void>;
  /** The ordered unique key to page on, as entity property paths (default the entity's primary key). */
  readonly key?: string | readonly string[];
  /** A migration (a TypeORM migration name or timestamp) that must be applied first: `X_BACKFILL_MIGRATION_PENDING`. */
  readonly requires?: string;
  /** The environments the sweep belongs to (omitted: every one): elsewhere `X_BACKFILL_ENVIRONMENT`. */
  readonly environments?: readonly string[];
  /**
   * The same predicate `source` selects on, counted: after the last page a count above 0 is `X_BACKFILL_STALLED`,
   * and a dry run reports it. Must answer a non-negative safe integer (else `X_INVARIANT`).
   */
  readonly count?: (args: BackfillSourceArgs) => number | Promise<number>;
  /** The queue the pass runs on (default the job default). */
  readonly queue?: string;
  /** How a failed attempt of the pass is retried, as on `job()`. */
  readonly retry?: RetryPolicy;
  /** Bounds one attempt of the pass. */
  readonly timeout?: Duration;
  /** Bounds one page (read, handle and pause): the ceiling composed into `handle`'s signal. */
  readonly stepTimeout?: Duration;
  /** Told once the pass ends (its result on `completed`), as a job's `onSettled` is. */
  readonly onSettled?: (settled: JobSettled<BackfillInput, BackfillResult>) => void | Promise<void>;
  /** The clock the throttle waits on (default the system clock). */
  readonly clock?: Clock;
  /** The ledger, environment and app version, when the installed facade does not carry them (tests, scripts). */
  readonly runtime?: BackfillRuntime | (() => BackfillRuntime);
}

/** What a pass answers: how much it swept, or that a completed pass made it a no-op. */
export interface BackfillResult {
  /** The backfill's name. */
  readonly name: string;
  /** Pages the pass handled (0 when skipped). */
  readonly batches: number;
  /** Rows the pass handled (0 when skipped). */
  readonly rows: number;
  /** True when a completed pass is in the ledger and `force` was not set: nothing was read. */
  readonly skipped: boolean;
  /** The run of the completed pass that made this one a no-op, else null. */
  readonly previousRunId: string | null;
}

/** What a backfill's `enqueue` takes: `{}`, or `{ force: true }` to sweep a completed name again, into a new row. */
export interface BackfillInput {
  /** Sweep again even though a completed pass is in the ledger. */
  readonly force?: boolean;
}

/** The JSON manifest row of one backfill (`registeredBackfills()`). */
export interface BackfillDescriptor {
  /** Always `'backfill'`. */
  readonly kind: 'backfill';
  /** The durable key: the job's name and the ledger's. */
  readonly name: string;
  /** The definition checksum (see `backfillChecksum`). */
  readonly checksum: string;
  /** The migration that must be applied first, or null. */
  readonly requires: string | null;
  /** Null: every environment. */
  readonly environments: readonly string[] | null;
  /** Whether it declares `count`. */
  readonly counts: boolean;
  /** Rows per page. */
  readonly batch: number;
  /** Pages per second. */
  readonly rate: number;
}
