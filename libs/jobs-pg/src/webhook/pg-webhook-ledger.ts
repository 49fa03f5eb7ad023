import {
  InvariantError,
  webhookAttemptsLimit,
  type PurgeTarget,
  type WebhookAttempt,
  type WebhookAttemptOutcome,
  type WebhookLedger,
} from '@ultimat3/jobs';
import { keysetPurge } from '../driver/keyset-sweep';
import { iso, retentionCutoff } from '../driver/pg-context';
import type { PgExecutor } from '../executor/pg-executor';
import { quoteSchema } from '../schema';
import { webhookStatementsFor, type WebhookStatements } from './statements';

/** The name the ledger's purge target answers, for the steps of a `purge()` sweep. */
export const WEBHOOK_ATTEMPTS_PURGE_TARGET = 'x_webhook_attempts';

/** Options of {@link postgresWebhookLedger}. */
export interface PostgresWebhookLedgerOptions {
  /** Runs every statement (the job driver's executor, or any other over the same database). */
  readonly executor: PgExecutor;
  /** The schema holding the tables `migrate()` created (default: found through `search_path`). */
  readonly schema?: string;
}

/** How long attempts are kept: the app's answer, since it differs by business. */
export interface WebhookRetention {
  /** Attempts older than this are removed (ms). */
  readonly keepMs: number;
  /** Rows one statement removes at most (default 1,000). */
  readonly batchSize?: number;
}

/** A PostgreSQL {@link WebhookLedger}, with a retention target for `purge()`. */
export interface PostgresWebhookLedger extends WebhookLedger {
  /**
   * The ledger's attempts as a retention target: hand it to `purge({ targets: () => [ledger.purgeTarget({ keepMs })]
   * })`. Only attempts are swept; an endpoint's count and disabled verdict are kept for good.
   */
  purgeTarget(retention: WebhookRetention): PurgeTarget;
}

interface AttemptRecord {
  readonly endpoint_id: string;
  readonly event_id: string;
  readonly topic: string;
  readonly org_id: string | null;
  readonly job_id: string;
  readonly run_id: string;
  readonly attempt: number;
  readonly outcome: WebhookAttemptOutcome;
  readonly status: number | null;
  readonly code: string | null;
  readonly error: string | null;
  readonly attempted_at_ms: number | string;
  readonly duration_ms: number;
}

/** The {@link WebhookAttempt} of a stored attempt row. */
function attemptOf(r: AttemptRecord): WebhookAttempt {
  return {
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    topic: r.topic,
    orgId: r.org_id,
    jobId: r.job_id,
    runId: r.run_id,
    attempt: r.attempt,
    outcome: r.outcome,
    status: r.status,
    code: r.code,
    error: r.error,
    attemptedAtMs: Number(r.attempted_at_ms),
    durationMs: r.duration_ms,
  };
}

/** A positive finite number, or `X_INVARIANT` naming the field. */
function positive(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvariantError(
      `postgresWebhookLedger: ${field} must be a positive finite number (got ${String(value)}).`,
    );
  }
  return value;
}

/** The attempts older than `keepMs` at `nowMs`, removed in keyset batches until a batch takes fewer than its limit. */
function purgeAttempts(
  executor: PgExecutor,
  sql: WebhookStatements,
  nowMs: number,
  keepMs: number,
  limit: number,
): Promise<number> {
  return keysetPurge(executor, sql.purge, retentionCutoff(nowMs, keepMs), limit);
}

/**
 * The webhook ledger in `x_webhook_attempts` (append-only) and `x_webhook_endpoints` (count and verdict per endpoint),
 * created by `migrate()` (migration 0009). Every member is ONE statement; `record` appends the attempt and moves the
 * count together, so an attempt is never recorded without being counted.
 */
export function postgresWebhookLedger(
  options: PostgresWebhookLedgerOptions,
): PostgresWebhookLedger {
  if (options.schema !== undefined) quoteSchema(options.schema); // refuse a bad name at construction
  const { executor } = options;
  const sql = webhookStatementsFor(options.schema);
  return {
    async record(a: WebhookAttempt) {
      const { rows } = await executor.query<{ consecutive_failures: number }>(sql.record, [
        a.endpointId,
        a.eventId,
        a.topic,
        a.orgId,
        a.jobId,
        a.runId,
        a.attempt,
        a.outcome,
        a.status,
        a.code,
        a.error,
        iso(a.attemptedAtMs),
        Math.min(2_147_483_647, Math.max(0, Math.round(a.durationMs))),
      ]);
      return Number(rows[0]?.consecutive_failures ?? 0);
    },
    async isDisabled(endpointId) {
      const { rows } = await executor.query<{ disabled: boolean }>(sql.isDisabled, [endpointId]);
      return rows[0]?.disabled === true;
    },
    async disable(endpointId, d) {
      await executor.query(sql.disable, [endpointId, d.failures, iso(d.atMs), d.code]);
    },
    async enable(endpointId) {
      await executor.query(sql.enable, [endpointId]);
    },
    async attempts(endpointId, limit) {
      const bounded = webhookAttemptsLimit(limit);
      const { rows } = await executor.query<AttemptRecord>(sql.attempts, [endpointId, bounded]);
      return rows.map(attemptOf);
    },
    purgeTarget(retention) {
      const keepMs = positive('retention.keepMs', retention.keepMs);
      const limit = Math.max(
        1,
        Math.floor(positive('retention.batchSize', retention.batchSize ?? 1_000)),
      );
      return {
        name: WEBHOOK_ATTEMPTS_PURGE_TARGET,
        purgeExpired: (nowMs) => purgeAttempts(executor, sql, nowMs, keepMs, limit),
      };
    },
  };
}
