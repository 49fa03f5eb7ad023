import {
  boundedText,
  OutboxNoTxError,
  quarantinedPageLimit,
  type Clock,
  type EnqueueRequest,
  type OutboxBacklog,
  type OutboxQuarantineCode,
  type OutboxRecord,
  type OutboxStore,
  type QuarantinedOutboxRecord,
} from '@ultimat3/jobs';
import { isUuid } from '../driver/pg-context';
import type { PgExecutor } from '../executor/pg-executor';
import { quoteSchema } from '../schema';
import { outboxStatementsFor } from './statements';
import { startOutboxWake } from './pg-outbox-wake';
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

interface ClaimedRow {
  readonly id: string;
  readonly request: EnqueueRequest;
  readonly staged_at: Date;
  readonly claimed_by: string;
  readonly claimed_at: Date;
  readonly attempts: number;
  readonly tx_key: string;
}

const toRecord = (row: ClaimedRow): OutboxRecord => ({
  id: row.id,
  request: row.request,
  stagedAt: new Date(row.staged_at).getTime(),
  claimedBy: row.claimed_by,
  claimedAt: new Date(row.claimed_at).getTime(),
  attempts: row.attempts,
  txKey: row.tx_key,
});

interface BacklogRow {
  readonly n: number;
  readonly oldest_staged_at: number | null;
  readonly oldest_age_ms: number;
}

interface QuarantinedRow {
  readonly id: string;
  readonly request: EnqueueRequest;
  readonly staged_at: Date;
  readonly quarantined_at: Date;
  readonly quarantine_code: OutboxQuarantineCode;
  readonly attempts: number;
  readonly last_error: string | null;
}

const toQuarantined = (row: QuarantinedRow): QuarantinedOutboxRecord => ({
  id: row.id,
  request: row.request,
  stagedAt: new Date(row.staged_at).getTime(),
  quarantinedAt: new Date(row.quarantined_at).getTime(),
  code: row.quarantine_code,
  attempts: row.attempts,
  error: row.last_error,
});

/**
 * The transactional outbox over `x_outbox`. `stage()` writes on the caller's connection (see `txExecutor`), so the row
 * commits or rolls back with the caller's business rows; the relay's statements run on `executor`. Every statement is
 * one of `src/outbox/sql/*.sql.ts`, verbatim. Published rows are kept with `published_at` as the audit trail: nothing
 * here deletes them. Passes `outboxStoreConformance`.
 */
export function postgresOutboxStore(options: PostgresOutboxStoreOptions): OutboxStore {
  if (options.schema !== undefined) quoteSchema(options.schema); // refuse a bad name at construction
  const sql = outboxStatementsFor(options.schema);
  const { executor, clock } = options;
  const txExecutor = options.txExecutor ?? typeormTxExecutor;
  const now = (): string | null => (clock ? new Date(clock.now()).toISOString() : null);
  const uuids = (ids: readonly string[]): string[] => ids.filter(isUuid);
  /** The caller's connection for `tx` (the pool without one); a `tx` it cannot write on is refused, never moved. */
  const executorFor = (job: string, tx: unknown): PgExecutor => {
    const on = tx === undefined ? executor : txExecutor(tx);
    if (on === undefined) {
      throw new OutboxNoTxError(
        job,
        'was enqueued with a tx the outbox store cannot write on (not an open transaction its txExecutor knows)',
      );
    }
    return on;
  };

  const { wakeUrl, wakeConnectTimeoutMs } = options;
  const wake: Pick<OutboxStore, 'startWake'> =
    wakeUrl === undefined || wakeUrl === ''
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

  return {
    async stage(request, tx) {
      await executorFor(request.name, tx).query(sql.stage, [
        request.id,
        request.runId,
        request.name,
        request.queue,
        JSON.stringify(request),
      ]);
    },

    async stageMany(requests, tx) {
      if (requests.length === 0) return;
      const column = <T>(pick: (r: EnqueueRequest) => T): T[] => requests.map(pick);
      await executorFor(requests[0]?.name ?? '', tx).query(sql.stageMany, [
        column((r) => r.id),
        column((r) => r.runId),
        column((r) => r.name),
        column((r) => r.queue),
        column((r) => JSON.stringify(r)),
      ]);
    },

    async claim({ claimant, limit, leaseMs }) {
      const { rows } = await executor.query<ClaimedRow>(sql.claim, [
        now(),
        claimant,
        limit,
        leaseMs,
      ]);
      return rows.map(toRecord);
    },

    async markPublished(ids, claimant) {
      const valid = uuids(ids);
      if (valid.length === 0) return 0;
      const { rowCount } = await executor.query(sql.markPublished, [valid, claimant, now()]);
      return rowCount;
    },

    async release(ids, claimant, failure) {
      const valid = uuids(ids);
      if (valid.length === 0) return 0;
      const failed = failure !== undefined && isUuid(failure.id) ? failure : undefined;
      const { rowCount } = await executor.query(sql.release, [
        valid,
        claimant,
        failed?.id ?? null,
        failed === undefined ? null : boundedText(failed.error),
      ]);
      return rowCount;
    },

    async quarantine(id, claimant, error) {
      if (!isUuid(id)) return [];
      const { rows } = await executor.query<{ id: string }>(sql.quarantine, [
        id,
        claimant,
        boundedText(error),
        now(),
      ]);
      return rows.map((r) => r.id);
    },

    async quarantined(limit) {
      const { rows } = await executor.query<QuarantinedRow>(sql.quarantined, [
        quarantinedPageLimit(limit),
      ]);
      return rows.map(toQuarantined);
    },

    async restore(ids) {
      const valid = uuids(ids);
      if (valid.length === 0) return 0;
      const { rowCount } = await executor.query(sql.restore, [valid]);
      return rowCount;
    },

    async retained() {
      const { rows } = await executor.query<{ n: number }>(sql.retained, []);
      return rows[0]?.n ?? 0;
    },

    async backlog(): Promise<OutboxBacklog> {
      const { rows } = await executor.query<BacklogRow>(sql.backlog, []);
      const row = rows[0];
      const oldest = row?.oldest_staged_at ?? null;
      return {
        count: Number(row?.n ?? 0),
        oldestStagedAt: oldest === null ? null : Number(oldest),
        oldestAgeMs: oldest === null ? 0 : Number(row?.oldest_age_ms ?? 0),
      };
    },
    ...wake,
  };
}
