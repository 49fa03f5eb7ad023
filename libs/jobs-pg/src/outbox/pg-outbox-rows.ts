import type {
  EnqueueRequest,
  OutboxBacklog,
  OutboxQuarantineCode,
  OutboxRecord,
  QuarantinedOutboxRecord,
} from '@ultimat3/jobs';

/** A row `SQL_OUTBOX_CLAIM` answers. */
export interface ClaimedRow {
  readonly id: string;
  readonly request: EnqueueRequest;
  readonly staged_at: Date;
  readonly claimed_by: string;
  readonly claimed_at: Date;
  readonly attempts: number;
  readonly tx_key: string;
}

/** A claimed row as the relay reads it. */
export const toRecord = (row: ClaimedRow): OutboxRecord => ({
  id: row.id,
  request: row.request,
  stagedAt: new Date(row.staged_at).getTime(),
  claimedBy: row.claimed_by,
  claimedAt: new Date(row.claimed_at).getTime(),
  attempts: row.attempts,
  txKey: row.tx_key,
});

/** The row `SQL_OUTBOX_BACKLOG` answers. */
export interface BacklogRow {
  readonly n: number;
  readonly oldest_staged_at: number | null;
  readonly oldest_age_ms: number;
}

/** The backlog as `OutboxStore.backlog` answers it: none when the statement answered no row. */
export function toBacklog(row: BacklogRow | undefined): OutboxBacklog {
  const oldest = row?.oldest_staged_at ?? null;
  return {
    count: Number(row?.n ?? 0),
    oldestStagedAt: oldest === null ? null : Number(oldest),
    oldestAgeMs: oldest === null ? 0 : Number(row?.oldest_age_ms ?? 0),
  };
}

/** A row `SQL_OUTBOX_QUARANTINED` answers. */
export interface QuarantinedRow {
  readonly id: string;
  readonly request: EnqueueRequest;
  readonly staged_at: Date;
  readonly quarantined_at: Date;
  readonly quarantine_code: OutboxQuarantineCode;
  readonly attempts: number;
  readonly last_error: string | null;
}

/** A quarantined row as an operator reads it. */
export const toQuarantined = (row: QuarantinedRow): QuarantinedOutboxRecord => ({
  id: row.id,
  request: row.request,
  stagedAt: new Date(row.staged_at).getTime(),
  quarantinedAt: new Date(row.quarantined_at).getTime(),
  code: row.quarantine_code,
  attempts: row.attempts,
  error: row.last_error,
});
