import type { JsonValue } from '../util/json';

/** Where one pass stands: in flight (or being retried), done, or its newest attempt failed. */
export type BackfillStatus = 'running' | 'completed' | 'failed';

/** One row of the ledger: one pass of one backfill. A report of the pass, never where a resumed pass restarts. */
export interface BackfillPassRow {
  /** The row's own id (a UUID). */
  readonly id: string;
  /** The backfill's name. */
  readonly name: string;
  /** The definition checksum the pass ran under (see `backfillChecksum`). */
  readonly checksum: string;
  /** Whether the pass is running, completed or failed. */
  readonly status: BackfillStatus;
  /** The app's version that started the pass, when the runtime knows it. */
  readonly appVersion: string | null;
  /** The job that runs the pass: its retries adopt this row. */
  readonly jobId: string | null;
  /** The run id of the job that runs the pass. */
  readonly runId: string | null;
  /** Rows handled so far. */
  readonly rows: number;
  /** Pages handled so far. */
  readonly batches: number;
  /** The keyset cursor after the last handled page (null before the first). */
  readonly lastCursor: JsonValue | null;
  /** The newest failure's text: set when the row fails, kept when a retry adopts it and when that retry completes. */
  readonly lastError: string | null;
  /** When the pass began (epoch ms): an adopting retry keeps it. */
  readonly startedAt: number;
  /** When the row was last written (epoch ms). */
  readonly updatedAt: number;
  /** When the pass completed (epoch ms), or null. */
  readonly completedAt: number | null;
}

/** A new row: a pass starting. */
export interface BackfillPassStart {
  /** The new row's id (a UUID). */
  readonly id: string;
  /** The backfill's name. */
  readonly name: string;
  /** The definition checksum the pass runs under. */
  readonly checksum: string;
  /** The app's version, when the runtime knows it. */
  readonly appVersion: string | null;
  /** The job that runs the pass. */
  readonly jobId: string;
  /** That job's run id. */
  readonly runId: string;
  /** When the pass starts (epoch ms). */
  readonly nowMs: number;
}

/** How far a pass got: written after each page, and with its ending. */
export interface BackfillPassProgress {
  /** Rows handled so far. */
  readonly rows: number;
  /** Pages handled so far. */
  readonly batches: number;
  /** The keyset cursor after the last handled page. */
  readonly lastCursor: JsonValue | null;
  /** When the progress is written (epoch ms). */
  readonly nowMs: number;
}

/** Which rows {@link BackfillLedger.list} answers. */
export interface BackfillLedgerFilter {
  /** Rows of this backfill only. */
  readonly name?: string;
  /** Rows in this status only. */
  readonly status?: BackfillStatus;
  /** At most this many rows (default 100). */
  readonly limit?: number;
}

/** The default page of {@link BackfillLedger.list}. */
export const DEFAULT_BACKFILL_LIST_LIMIT = 100;

/**
 * The `x_backfills` ledger, one row per pass — the twin of a migrations table. A backend declares it as a capability
 * (PostgreSQL, Redis, memory); a backend without one runs passes anyway, with no bookkeeping. Every write names the
 * row it changes and is safe to repeat: a pass whose attempt dies between a write and its step's checkpoint writes
 * it again.
 */
export interface BackfillLedger {
  /**
   * Inserts the row of a starting pass, or answers the row this job already holds (a retry adopts its own row: a
   * failed row is running again, its `startedAt` kept). Answers the row as it now stands.
   */
  begin(start: BackfillPassStart): Promise<BackfillPassRow>;
  /** Records how far the pass got (a running row only; a finished row is left as it is). */
  progress(id: string, progress: BackfillPassProgress): Promise<void>;
  /** Ends the pass: `completed` (with its completion time) or `failed` with the error's text. */
  finish(
    id: string,
    status: 'completed' | 'failed',
    progress: BackfillPassProgress,
    error: string | null,
  ): Promise<void>;
  /** The row of the pass a job runs, if any. */
  byJob(jobId: string): Promise<BackfillPassRow | undefined>;
  /** Rows, newest pass first (by `startedAt`, then id). */
  list(filter?: BackfillLedgerFilter): Promise<readonly BackfillPassRow[]>;
}
