import type { Clock, OutboxStore } from '@ultimat3/jobs';
import type { PgExecutor } from '../executor/pg-executor';
import { quoteSchema } from '../schema';
import { outboxStatementsFor } from './statements';
import { startOutboxWake } from './pg-outbox-wake';
import { PgOutboxQueries } from './pg-outbox-queries';
import { typeormTxExecutor } from './typeorm-tx-executor';

/** Options of {@link postgresOutboxStore}. */
export interface PostgresOutboxStoreOptions {
  /** Runs the relay's statements (claim, markPublished, release, retained, backlog) and a `stage()` given no `tx`. */
  readonly executor: PgExecutor;
  /**
   * The executor on the CALLER'S connection for `tx` — what makes staging transactional. `undefined` means "not a
   * transaction this store can write on", and the stage is refused (`X_OUTBOX_NO_TX`), never moved to the pool.
   * Default {@link typeormTxExecutor} (a TypeORM `EntityManager` or `QueryRunner` in an open transaction). For a
   * `pg` client inside `BEGIN`: `(tx) => pgPoolExecutor(tx as PoolClient)`.
   */
  readonly txExecutor?: (tx: unknown) => PgExecutor | undefined;
  /** The schema holding `x_outbox` (default: found through `search_path`). */
  readonly schema?: string;
  /** Decides leases and stamps `claimed_at` / `published_at` (default: the database's `now()`). */
  readonly clock?: Clock;
  /**
   * The outbox database's connection string, dialled for the relay's wake: one LISTEN session on `x_outbox_wake`, so
   * a relay finds a commit at once instead of at its next poll — whatever driver it publishes onto (with
   * `driver: 'redis'` this is the only wake it has). Without it a relay on `driver: 'postgres'` uses the backend's
   * wake, and one on another driver only polls.
   */
  readonly wakeUrl?: string;
  /** How long the wake's LISTEN session may take to connect (default 10 000 ms). */
  readonly wakeConnectTimeoutMs?: number;
}

/** The name of the store's retention target: the `'postgres'` driver's own target over its `x_outbox` is named alike. */
export const OUTBOX_PURGE_TARGET = 'x_outbox';

/**
 * The transactional outbox over `x_outbox`. `stage()` writes on the caller's connection (see `txExecutor`), so the row
 * commits or rolls back with the caller's business rows; the relay's statements run on `executor`. Every statement is
 * one of `src/outbox/sql/*.sql.ts`, verbatim. Published rows are kept with `published_at` as the audit trail until its
 * retention target (`purgeTarget`, which `JobsModule`'s sweep runs) deletes them. Passes `outboxStoreConformance`.
 */
export function postgresOutboxStore(options: PostgresOutboxStoreOptions): OutboxStore {
  if (options.schema !== undefined) quoteSchema(options.schema); // refuse a bad name at construction
  const queries = new PgOutboxQueries(
    outboxStatementsFor(options.schema),
    options.executor,
    options.txExecutor ?? typeormTxExecutor,
    options.clock,
  );
  return {
    stage: (request, tx) => queries.stage(request, tx),
    stageMany: (requests, tx) => queries.stageMany(requests, tx),
    claim: (claimOptions) => queries.claim(claimOptions),
    markPublished: (ids, claimant) => queries.markPublished(ids, claimant),
    release: (ids, claimant, failure) => queries.release(ids, claimant, failure),
    quarantine: (id, claimant, error) => queries.quarantine(id, claimant, error),
    quarantined: (limit) => queries.quarantined(limit),
    restore: (ids) => queries.restore(ids),
    retained: () => queries.retained(),
    backlog: () => queries.backlog(),
    purgeTarget: (policy) => ({
      name: OUTBOX_PURGE_TARGET,
      purgeExpired: (nowMs) => queries.purgePublished(nowMs, policy),
    }),
    ...outboxWakeOf(options),
  };
}

/** The store's `startWake` when a `wakeUrl` is given: a LISTEN session of its own on the outbox's database. */
function outboxWakeOf(options: PostgresOutboxStoreOptions): Pick<OutboxStore, 'startWake'> {
  const { wakeUrl, wakeConnectTimeoutMs, executor } = options;
  return wakeUrl === undefined || wakeUrl === ''
    ? {}
    : {
        startWake: (onWake, logger, onLive) =>
          startOutboxWake(
            {
              url: wakeUrl,
              executor,
              ...(wakeConnectTimeoutMs === undefined
                ? {}
                : { connectTimeoutMs: wakeConnectTimeoutMs }),
            },
            onWake,
            logger,
            onLive,
          ),
      };
}
