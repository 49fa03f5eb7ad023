import type { JsonValue } from '../util/json';
import type {
  BackfillLedger,
  BackfillLedgerFilter,
  BackfillPassRow,
  BackfillStatus,
} from './ledger';

/** One ledger row as every surface shows it (times as ISO text): the one projection they all read. */
export interface BackfillPassView {
  readonly id: string;
  readonly name: string;
  readonly status: BackfillStatus;
  readonly checksum: string;
  readonly appVersion: string | null;
  readonly jobId: string | null;
  readonly runId: string | null;
  readonly rows: number;
  readonly batches: number;
  readonly lastCursor: JsonValue | null;
  readonly lastError: string | null;
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly completedAt: string | null;
}

/** The view of one ledger row. */
export function backfillPassView(row: BackfillPassRow): BackfillPassView {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    checksum: row.checksum,
    appVersion: row.appVersion,
    jobId: row.jobId,
    runId: row.runId,
    rows: row.rows,
    batches: row.batches,
    lastCursor: row.lastCursor,
    lastError: row.lastError,
    startedAt: new Date(row.startedAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
    completedAt: row.completedAt === null ? null : new Date(row.completedAt).toISOString(),
  };
}

/**
 * The ledger as every surface reads it — `x db backfill --list`, the passes in flight beside the queue depth, the
 * row under a job in `x jobs show` — newest pass first, so none of them can report a different number.
 */
export async function inspectBackfills(
  ledger: BackfillLedger,
  filter: BackfillLedgerFilter = {},
): Promise<BackfillPassView[]> {
  return (await ledger.list(filter)).map(backfillPassView);
}

/** The ledger row of the pass a job runs, for `inspectJob` / `x jobs show` (null for any other job). */
export async function inspectBackfillOfJob(
  ledger: BackfillLedger | undefined,
  jobId: string,
): Promise<BackfillPassView | null> {
  if (ledger === undefined) return null;
  const row = await ledger.byJob(jobId);
  return row === undefined ? null : backfillPassView(row);
}
