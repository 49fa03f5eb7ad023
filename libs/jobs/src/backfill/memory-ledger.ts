import { clampBackfillListLimit, newestFirst } from './ledger-order';
import type {
  BackfillLedger,
  BackfillLedgerFilter,
  BackfillPassProgress,
  BackfillPassRow,
  BackfillPassStart,
} from './ledger';

/** Copies a cursor, so a caller holding the value it passed cannot edit the stored row. */
const copy = <T>(value: T): T =>
  value === null ? value : (JSON.parse(JSON.stringify(value)) as T);

/**
 * A held row as handed out: a copy whose cursor is copied too, so a caller editing what it read (a cursor's nested
 * JSON included) cannot change the stored row, as it cannot a row read back from a database.
 */
const handedOut = (row: BackfillPassRow): BackfillPassRow => ({
  ...row,
  lastCursor: copy(row.lastCursor),
});

/** The row of a pass starting now: running, nothing processed yet. */
function startedRow(start: BackfillPassStart): BackfillPassRow {
  return {
    id: start.id,
    name: start.name,
    checksum: start.checksum,
    status: 'running',
    appVersion: start.appVersion,
    jobId: start.jobId,
    runId: start.runId,
    rows: 0,
    batches: 0,
    lastCursor: null,
    lastError: null,
    startedAt: start.nowMs,
    updatedAt: start.nowMs,
    completedAt: null,
  };
}

/** A held row after `progress`: a running row moves on; any other is left as it is (undefined). */
function progressedRow(
  row: BackfillPassRow,
  progress: BackfillPassProgress,
): BackfillPassRow | undefined {
  return row.status !== 'running'
    ? undefined
    : {
        ...row,
        rows: progress.rows,
        batches: progress.batches,
        lastCursor: copy(progress.lastCursor),
        updatedAt: progress.nowMs,
      };
}

/** A held row after `finish`: a completed row is left as it is (undefined); any other ends with `status`. */
function finishedRow(
  row: BackfillPassRow,
  status: 'completed' | 'failed',
  progress: BackfillPassProgress,
  error: string | null,
): BackfillPassRow | undefined {
  return row.status === 'completed'
    ? undefined
    : {
        ...row,
        status,
        rows: progress.rows,
        batches: progress.batches,
        lastCursor: copy(progress.lastCursor),
        lastError: status === 'failed' ? error : row.lastError,
        updatedAt: progress.nowMs,
        completedAt: status === 'completed' ? progress.nowMs : null,
      };
}

/**
 * The ledger in this process's memory: the memory backend's, and the reference the stored ledgers are compared with.
 * Rows live as long as the ledger object; nothing is shared between two of them.
 */
export function memoryBackfillLedger(): BackfillLedger {
  const rows = new Map<string, BackfillPassRow>();
  const jobs = new Map<string, string>();

  const update = (id: string, change: (row: BackfillPassRow) => BackfillPassRow | undefined) => {
    const row = rows.get(id);
    if (row === undefined) return;
    const next = change(row);
    if (next !== undefined) rows.set(id, next);
  };

  return {
    async begin(start: BackfillPassStart) {
      const own = jobs.get(start.jobId);
      const held = own === undefined ? undefined : rows.get(own);
      if (held !== undefined) {
        if (held.status !== 'failed') return handedOut(held);
        const adopted: BackfillPassRow = {
          ...held,
          status: 'running',
          runId: start.runId,
          updatedAt: start.nowMs,
        };
        rows.set(held.id, adopted);
        return handedOut(adopted);
      }
      const row = startedRow(start);
      rows.set(row.id, row);
      jobs.set(start.jobId, row.id);
      return handedOut(row);
    },

    async progress(id: string, progress: BackfillPassProgress) {
      update(id, (row) => progressedRow(row, progress));
    },

    async finish(id, status, progress, error) {
      update(id, (row) => finishedRow(row, status, progress, error));
    },

    async byJob(jobId: string) {
      const id = jobs.get(jobId);
      const row = id === undefined ? undefined : rows.get(id);
      return row === undefined ? undefined : handedOut(row);
    },

    async list(filter: BackfillLedgerFilter = {}) {
      const limit = clampBackfillListLimit(filter.limit);
      return [...rows.values()]
        .filter((row) => filter.name === undefined || row.name === filter.name)
        .filter((row) => filter.status === undefined || row.status === filter.status)
        .sort(newestFirst)
        .slice(0, limit)
        .map(handedOut);
    },
  };
}
