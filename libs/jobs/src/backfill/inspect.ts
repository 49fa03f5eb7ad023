import type { JsonValue } from '../util/json';
import type {
  BackfillLedger,
  BackfillLedgerFilter,
  BackfillPassRow,
  BackfillStatus,
} from './ledger';

/** One ledger row as every surface shows it (times as ISO text): the one projection they all read. */
export interface BackfillPassView {
  /** The row's own id (a UUID). */
  readonly id: string;
  /** The backfill's name. */
  readonly name: string;
  /** Whether the pass is running, completed or failed. */
  readonly status: BackfillStatus;
  /** The definition checksum the pass ran under. */
  readonly checksum: string;
  /** The app's version that started the pass, when known. */
  readonly appVersion: string | null;
  /** The job that runs the pass. */
  readonly jobId: string | null;
  /** That job's run id. */
  readonly runId: string | null;
  /** Rows handled so far. */
  readonly rows: number;
  /** Pages handled so far. */
  readonly batches: number;
  /** The keyset cursor after the last handled page (null before the first). */
  readonly lastCursor: JsonValue | null;
  /** The newest failure's text, or null. */
  readonly lastError: string | null;
  /** When the pass began (ISO text). */
  readonly startedAt: string;
  /** When the row was last written (ISO text). */
  readonly updatedAt: string;
  /** When the pass completed (ISO text), or null. */
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
