import {
  boundedText,
  OutboxNoTxError,
  quarantinedPageLimit,
  type Clock,
  type EnqueueRequest,
  type OutboxBacklog,
  type OutboxClaimOptions,
  type OutboxPublishFailure,
  type OutboxRecord,
  type QuarantinedOutboxRecord,
  type ResolvedRetention,
} from '@ultimat3/jobs';
import { keysetPurge } from '../driver/keyset-sweep';
import { isUuid, retentionCutoff } from '../driver/pg-context';
import type { PgExecutor } from '../executor/pg-executor';
import {
  toBacklog,
  toQuarantined,
  toRecord,
  type BacklogRow,
  type ClaimedRow,
  type QuarantinedRow,
} from './pg-outbox-rows';
import type { OutboxStatements } from './statements';

const uuids = (ids: readonly string[]): string[] => ids.filter(isUuid);

/**
 * Every statement of the PostgreSQL outbox store, sent: staging on the caller's connection (`txExecutor`), the relay's
 * and the operator's statements on `executor`. Ids that are not uuids never reach the database.
 */
export class PgOutboxQueries {
  constructor(
    private readonly sql: OutboxStatements,
    private readonly executor: PgExecutor,
    private readonly txExecutor: (tx: unknown) => PgExecutor | undefined,
    private readonly clock: Clock | undefined,
  ) {}

  /** See `OutboxStore.stage`. */
  async stage(request: EnqueueRequest, tx: unknown): Promise<void> {
    await this.executorFor(request.name, tx).query(this.sql.stage, [
      request.id,
      request.runId,
      request.name,
      request.queue,
      JSON.stringify(request),
    ]);
  }

  /** See `OutboxStore.stageMany`. */
  async stageMany(requests: readonly EnqueueRequest[], tx: unknown): Promise<void> {
    if (requests.length === 0) return;
    const column = <T>(pick: (r: EnqueueRequest) => T): T[] => requests.map(pick);
    await this.executorFor(requests[0]?.name ?? '', tx).query(this.sql.stageMany, [
      column((r) => r.id),
      column((r) => r.runId),
      column((r) => r.name),
      column((r) => r.queue),
      column((r) => JSON.stringify(r)),
    ]);
  }

  /** See `OutboxStore.claim`. */
  async claim({ claimant, limit, leaseMs }: OutboxClaimOptions): Promise<OutboxRecord[]> {
    const { rows } = await this.executor.query<ClaimedRow>(this.sql.claim, [
      this.now(),
      claimant,
      limit,
      leaseMs,
    ]);
    return rows.map(toRecord);
  }

  /** See `OutboxStore.markPublished`. */
  async markPublished(ids: readonly string[], claimant: string): Promise<number> {
    const valid = uuids(ids);
    if (valid.length === 0) return 0;
    const { rowCount } = await this.executor.query(this.sql.markPublished, [
      valid,
      claimant,
      this.now(),
    ]);
    return rowCount;
  }

  /** See `OutboxStore.release`. */
  async release(
    ids: readonly string[],
    claimant: string,
    failure: OutboxPublishFailure | undefined,
  ): Promise<number> {
    const valid = uuids(ids);
    if (valid.length === 0) return 0;
    const failed = failure !== undefined && isUuid(failure.id) ? failure : undefined;
    const { rowCount } = await this.executor.query(this.sql.release, [
      valid,
      claimant,
      failed?.id ?? null,
      failed === undefined ? null : boundedText(failed.error),
    ]);
    return rowCount;
  }

  /** See `OutboxStore.quarantine`. */
  async quarantine(id: string, claimant: string, error: string): Promise<string[]> {
    if (!isUuid(id)) return [];
    const { rows } = await this.executor.query<{ id: string }>(this.sql.quarantine, [
      id,
      claimant,
      boundedText(error),
      this.now(),
    ]);
    return rows.map((r) => r.id);
  }

  /** See `OutboxStore.quarantined`. */
  async quarantined(limit: number | undefined): Promise<QuarantinedOutboxRecord[]> {
    const { rows } = await this.executor.query<QuarantinedRow>(this.sql.quarantined, [
      quarantinedPageLimit(limit),
    ]);
    return rows.map(toQuarantined);
  }

  /** See `OutboxStore.restore`. */
  async restore(ids: readonly string[]): Promise<number> {
    const valid = uuids(ids);
    if (valid.length === 0) return 0;
    const { rowCount } = await this.executor.query(this.sql.restore, [valid]);
    return rowCount;
  }

  /** See `OutboxStore.retained`. */
  async retained(): Promise<number> {
    const { rows } = await this.executor.query<{ n: number }>(this.sql.retained, []);
    return rows[0]?.n ?? 0;
  }

  /** The rows published before `policy.finishedMs` ago at `nowMs`, in keyset batches of `policy.batchSize`. */
  purgePublished(nowMs: number, policy: ResolvedRetention): Promise<number> {
    const cutoff = retentionCutoff(nowMs, policy.finishedMs);
    return keysetPurge(this.executor, this.sql.purge, cutoff, policy.batchSize);
  }

  /** See `OutboxStore.backlog`. */
  async backlog(): Promise<OutboxBacklog> {
    const { rows } = await this.executor.query<BacklogRow>(this.sql.backlog, []);
    return toBacklog(rows[0]);
  }

  /** The store clock's now for the statements that stamp time, or `null` for the database's `now()`. */
  private now(): string | null {
    return this.clock ? new Date(this.clock.now()).toISOString() : null;
  }

  /** The caller's connection for `tx` (the pool without one); a `tx` it cannot write on is refused, never moved. */
  private executorFor(job: string, tx: unknown): PgExecutor {
    const on = tx === undefined ? this.executor : this.txExecutor(tx);
    if (on === undefined) {
      throw new OutboxNoTxError(
        job,
        'was enqueued with a tx the outbox store cannot write on (not an open transaction its txExecutor knows)',
      );
    }
    return on;
  }
}
