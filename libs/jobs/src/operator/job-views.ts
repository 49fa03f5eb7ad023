import type { BackfillPassView } from '../backfill/inspect';
import type { JobProgress, JobRow, JobState } from '../driver/job-row';
import type { JsonValue } from '../util/json';

/** One job row as every operator surface lists it: no input, no claim token. Times are epoch ms. */
export interface JobSummaryView {
  /** The job id. */
  readonly id: string;
  /** The run id. */
  readonly runId: string;
  /** The job's durable name. */
  readonly name: string;
  /** The queue the row is on. */
  readonly queue: string;
  /** The row's lifecycle state. */
  readonly state: JobState;
  /** Attempts claimed so far. */
  readonly attempt: number;
  /** Total attempts the row may take. */
  readonly maxAttempts: number;
  /** The declared tenant, or null for `tenant: 'none'`. */
  readonly tenantId: string | null;
  /** Lower runs first. */
  readonly priority: number;
  /** When the row is due. */
  readonly runAt: number;
  /** When the row was inserted. */
  readonly createdAt: number;
  /** When the row was last written. */
  readonly updatedAt: number;
  /** When the row reached a finished state, or null. */
  readonly finishedAt: number | null;
  /** The stored error text of the last failed attempt, or null. */
  readonly lastError: string | null;
  /** The last progress the run reported, or null. */
  readonly progress: JobProgress | null;
}

/** The failure a row stores (`lastError`), split into its parts. */
export interface JobFailureView {
  /** The `X_…` code the text starts with, or null when the thrown value carried none. */
  readonly code: string | null;
  /** The first line, without its code. */
  readonly message: string;
  /** The lines after the first (a stack, a terminal verdict), or null when the text is one line. */
  readonly stack: string | null;
}

/** One stored step of a run, with how long it took. */
export interface JobStepView {
  /** The step's name (its replay key). */
  readonly name: string;
  /** The attempt that completed it. */
  readonly attempt: number;
  /** When the step started (epoch ms). */
  readonly startedAt: number;
  /** When the step's result was stored (epoch ms). */
  readonly completedAt: number;
  /** `completedAt - startedAt`, in ms. */
  readonly durationMs: number;
  /**
   * How many later attempts were handed this step's stored result instead of running it again: the row's attempt
   * minus the step's, at most (an attempt that failed before reaching the step did not replay it); 0 after a requeue
   * restarted the count.
   */
  readonly replays: number;
  /** Whether the step stored an output (shown only when asked for: an output can carry what an input redacts). */
  readonly hasOutput: boolean;
  /** The stored output, when `outputs: true` was asked for and the step stored one. */
  readonly output?: JsonValue;
}

/** The ledger row of the `backfill()` pass a run carries out (`inspectBackfillOfJob`); null for any other job. */
export type JobBackfillView = BackfillPassView | null;

/** Everything an operator reads about one job: `inspectJob`'s answer, `x jobs show --json`. */
export interface JobView extends JobSummaryView {
  /** The key that dedupes a second enqueue while the row is live. */
  readonly idempotencyKey: string;
  /** The actor id that enqueued it (attribution, never authority), or null. */
  readonly enqueuedBy: string | null;
  /** The worker holding the current claim, while running. */
  readonly workerId: string | null;
  /** When the current lease lapses, while running. */
  readonly leaseExpiresAt: number | null;
  /** The fleet concurrency key the run counts under, or null. */
  readonly concurrencyKey: string | null;
  /** The W3C traceparent of the span active at the enqueue, or null. */
  readonly traceparent: string | null;
  /** Why a run of another tenant enqueued it (its `crossTenant(reason, …)`), or null. */
  readonly crossTenantReason: string | null;
  /** The stored input, with the declaration's `redact:` paths shown as `'[redacted]'`. */
  readonly input: JsonValue;
  /** The redaction applied: the declared paths, or null when no declaration of this job was known to the caller. */
  readonly redacted: readonly string[] | null;
  /** The last failure, decoded, or null. */
  readonly failure: JobFailureView | null;
  /** Completed steps in completion order, each with its duration. */
  readonly steps: readonly JobStepView[];
  /** The backfill ledger row of this run, or null. */
  readonly backfill: JobBackfillView;
}

/** One page of job rows, newest first, and the cursors around it. */
export interface JobPageView {
  /** The rows of the page, newest first. */
  readonly jobs: readonly JobSummaryView[];
  /** Pass as `after` for the next (older) page; null when this page is the last. */
  readonly next: string | null;
  /** Pass as `before` for the previous (newer) page; null when the page is empty. */
  readonly previous: string | null;
}

/** A row as {@link JobSummaryView}. */
export function jobSummary(row: JobRow): JobSummaryView {
  return {
    id: row.id,
    runId: row.runId,
    name: row.name,
    queue: row.queue,
    state: row.state,
    attempt: row.attempt,
    maxAttempts: row.maxAttempts,
    tenantId: row.tenantId,
    priority: row.priority,
    runAt: row.runAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    finishedAt: row.finishedAt,
    lastError: row.lastError,
    progress: row.progress,
  };
}

const CODE = /^(X_[A-Z0-9_]+|[A-Z][A-Z0-9_]*_[A-Z0-9_]+):\s*/;

/** A stored error text split into code, first line and the rest; null for no error. */
export function failureOf(lastError: string | null): JobFailureView | null {
  if (lastError === null || lastError === '') return null;
  const newline = lastError.indexOf('\n');
  const first = newline < 0 ? lastError : lastError.slice(0, newline);
  const rest = newline < 0 ? '' : lastError.slice(newline + 1);
  const match = CODE.exec(first);
  return {
    code: match?.[1] ?? null,
    message: match ? first.slice(match[0].length) : first,
    stack: rest.trim() === '' ? null : rest,
  };
}
