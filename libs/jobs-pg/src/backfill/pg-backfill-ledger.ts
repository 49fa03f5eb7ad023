import {
  clampBackfillListLimit,
  InvariantError,
  type BackfillLedger,
  type BackfillPassProgress,
  type BackfillPassRow,
  type BackfillStatus,
  type JsonValue,
} from '@ultimat3/jobs';
import type { PgExecutor } from '../executor/pg-executor';
import { isUuid, iso } from '../driver/pg-context';
import { toMs, type PgTime } from '../driver/pg-rows';
import { qualify } from '../schema';
import { SQL_BACKFILL_BEGIN } from '../sql/backfill-begin.sql';
import { SQL_BACKFILL_BY_JOB } from '../sql/backfill-by-job.sql';
import { SQL_BACKFILL_FINISH } from '../sql/backfill-finish.sql';
import { SQL_BACKFILL_LIST } from '../sql/backfill-list.sql';
import { SQL_BACKFILL_PROGRESS } from '../sql/backfill-progress.sql';

/** An `x_backfills` row as the executor answers it. */
interface BackfillRecord {
  readonly id: string;
  readonly name: string;
  readonly checksum: string;
  readonly status: BackfillStatus;
  readonly app_version: string | null;
  readonly job_id: string | null;
  readonly run_id: string | null;
  readonly rows_processed: string | number;
  readonly batches: string | number;
  readonly last_cursor: JsonValue | null;
  readonly last_error: string | null;
  readonly started_at: PgTime;
  readonly updated_at: PgTime;
  readonly completed_at: PgTime | null;
}

function rowOf(r: BackfillRecord): BackfillPassRow {
  return {
    id: r.id,
    name: r.name,
    checksum: r.checksum,
    status: r.status,
    appVersion: r.app_version,
    jobId: r.job_id,
    runId: r.run_id,
    rows: Number(r.rows_processed),
    batches: Number(r.batches),
    lastCursor: r.last_cursor,
    lastError: r.last_error,
    startedAt: toMs(r.started_at),
    updatedAt: toMs(r.updated_at),
    completedAt: r.completed_at === null ? null : toMs(r.completed_at),
  };
}

/** Options of {@link postgresBackfillLedger}. */
export interface PostgresBackfillLedgerOptions {
  /** Where the ledger's statements run. */
  readonly executor: PgExecutor;
  /** The schema the jobs tables live in (default: found through `search_path`), as the job driver's. */
  readonly schema?: string;
}

/** Whether `value` is a string holding a NUL character, which a `text` column never holds. */
const holdsNul = (value: unknown): boolean => typeof value === 'string' && value.includes('\u0000');

const cursorParam = (p: BackfillPassProgress): string | null =>
  p.lastCursor === null ? null : JSON.stringify(p.lastCursor);

/** The ledger's statements, qualified with `schema` when one is given. */
function ledgerStatements(schema: string | undefined) {
  return {
    begin: qualify(SQL_BACKFILL_BEGIN, schema),
    progress: qualify(SQL_BACKFILL_PROGRESS, schema),
    finish: qualify(SQL_BACKFILL_FINISH, schema),
    byJob: qualify(SQL_BACKFILL_BY_JOB, schema),
    list: qualify(SQL_BACKFILL_LIST, schema),
  };
}

/**
 * The backfill ledger in `x_backfills`, which ships in the jobs DDL (migration 0001): one row per pass, each write
 * one statement of `libs/jobs-pg/src/sql/backfill-*.sql.ts`, times from the pass's clock.
 */
export function postgresBackfillLedger(options: PostgresBackfillLedgerOptions): BackfillLedger {
  const { executor } = options;
  const sql = ledgerStatements(options.schema);
  return {
    async begin(start) {
      const { rows } = await executor.query<BackfillRecord>(sql.begin, [
        start.id,
        start.name,
        start.checksum,
        start.appVersion,
        start.jobId,
        start.runId,
        iso(start.nowMs),
      ]);
      const [row] = rows;
      if (row === undefined)
        throw new InvariantError(
          'jobs-pg: the backfill ledger answered no row (its upsert … returning always answers one).',
        );
      return rowOf(row);
    },

    async progress(id, progress) {
      if (!isUuid(id)) return;
      await executor.query(sql.progress, [
        id,
        progress.rows,
        progress.batches,
        cursorParam(progress),
        iso(progress.nowMs),
      ]);
    },

    async finish(id, status, progress, error) {
      if (!isUuid(id)) return;
      await executor.query(sql.finish, [
        id,
        status,
        progress.rows,
        progress.batches,
        cursorParam(progress),
        iso(progress.nowMs),
        error,
      ]);
    },

    async byJob(jobId) {
      if (!isUuid(jobId)) return undefined;
      const { rows } = await executor.query<BackfillRecord>(sql.byJob, [jobId]);
      return rows[0] === undefined ? undefined : rowOf(rows[0]);
    },

    async list(filter = {}) {
      const limit = clampBackfillListLimit(filter.limit);
      // a NUL no row can hold, and PostgreSQL refuses it in a parameter (22021): no row, as the other ledgers answer
      if (holdsNul(filter.name) || holdsNul(filter.status)) return [];
      const { rows } = await executor.query<BackfillRecord>(sql.list, [
        filter.name ?? null,
        filter.status ?? null,
        limit,
      ]);
      return rows.map(rowOf);
    },
  };
}
