import {
  InvariantError,
  type ClaimedJob,
  type JobProgress,
  type JobRow,
  type JobState,
  type JsonValue,
} from '@ultimat3/jobs';

/** A timestamp as a client decodes it: pg answers `Date`; other clients may answer text or epoch ms. */
export type PgTime = Date | string | number;

/** An `x_jobs` row as the executor answers it (json and jsonb decoded by `JSON.parse`). */
export interface JobRecord {
  readonly id: string;
  readonly run_id: string;
  readonly name: string;
  readonly queue: string;
  readonly input: JsonValue;
  readonly idempotency_key: string;
  readonly tenant_id: string | null;
  readonly enqueued_by: string | null;
  readonly state: JobState;
  readonly attempt: number;
  readonly max_attempts: number;
  readonly priority: number;
  readonly run_at: PgTime;
  readonly created_at: PgTime;
  readonly updated_at: PgTime;
  readonly worker_id: string | null;
  readonly claim: string | null;
  readonly lease_expires_at: PgTime | null;
  readonly last_error: string | null;
  readonly progress: JobProgress | null;
  readonly concurrency_key: string | null;
  readonly traceparent: string | null;
  readonly finished_at: PgTime | null;
  /** Absent from a schema before migration 0004. */
  readonly cross_tenant_reason?: string | null;
}

/** Epoch ms of a decoded timestamp. */
export function toMs(value: PgTime): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number') return value;
  const ms = Date.parse(value.includes('T') ? value : value.replace(' ', 'T'));
  if (Number.isNaN(ms)) throw new InvariantError(`jobs-pg: unreadable timestamp ${value}.`);
  return ms;
}

const toMsOrNull = (value: PgTime | null): number | null => (value === null ? null : toMs(value));

/** The {@link JobRow} of a stored row. */
export function toJobRow(r: JobRecord): JobRow {
  return {
    id: r.id,
    runId: r.run_id,
    name: r.name,
    queue: r.queue,
    input: r.input,
    idempotencyKey: r.idempotency_key,
    tenantId: r.tenant_id,
    enqueuedBy: r.enqueued_by,
    state: r.state,
    attempt: r.attempt,
    maxAttempts: r.max_attempts,
    priority: r.priority,
    runAt: toMs(r.run_at),
    createdAt: toMs(r.created_at),
    updatedAt: toMs(r.updated_at),
    workerId: r.worker_id,
    claim: r.claim,
    leaseExpiresAt: toMsOrNull(r.lease_expires_at),
    lastError: r.last_error,
    progress: r.progress,
    concurrencyKey: r.concurrency_key,
    traceparent: r.traceparent,
    finishedAt: toMsOrNull(r.finished_at),
    crossTenantReason: r.cross_tenant_reason ?? null,
  };
}

/**
 * The {@link ClaimedJob} of a row the claim just moved to running (the check constraint guarantees the fields). Built
 * in one literal: a claim decodes hundreds of rows, and a copy per row was a third of the decoding.
 */
export function toClaimedJob(r: JobRecord): ClaimedJob {
  if (r.state !== 'running' || r.worker_id === null || r.claim === null) {
    throw new InvariantError(`jobs-pg: claimed job ${r.id} came back ${r.state}.`);
  }
  return {
    id: r.id,
    runId: r.run_id,
    name: r.name,
    queue: r.queue,
    input: r.input,
    idempotencyKey: r.idempotency_key,
    tenantId: r.tenant_id,
    enqueuedBy: r.enqueued_by,
    state: 'running',
    attempt: r.attempt,
    maxAttempts: r.max_attempts,
    priority: r.priority,
    runAt: toMs(r.run_at),
    createdAt: toMs(r.created_at),
    updatedAt: toMs(r.updated_at),
    workerId: r.worker_id,
    claim: r.claim,
    leaseExpiresAt: r.lease_expires_at === null ? 0 : toMs(r.lease_expires_at),
    lastError: r.last_error,
    progress: r.progress,
    concurrencyKey: r.concurrency_key,
    traceparent: r.traceparent,
    finishedAt: toMsOrNull(r.finished_at),
    crossTenantReason: r.cross_tenant_reason ?? null,
  };
}
