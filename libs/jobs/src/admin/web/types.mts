/** The API's answers as the page reads them (the operator projection's views; only the fields the page shows). */

export type JobState =
  'ready' | 'delayed' | 'running' | 'suspended' | 'done' | 'failed' | 'dead' | 'cancelled';

export const JOB_STATES: readonly JobState[] = [
  'ready',
  'delayed',
  'running',
  'suspended',
  'done',
  'failed',
  'dead',
  'cancelled',
];

export interface QueueView extends Readonly<Record<JobState, number>> {
  readonly queue: string;
  readonly oldestReadyMs: number;
  readonly paused: boolean;
  readonly names: readonly { readonly name: string }[];
}

/** The last progress a run reported (`progress(done, total, note?)`), as the row stores it. */
export interface Progress {
  readonly done: number;
  readonly total: number;
  readonly note?: string;
}

export interface JobSummary {
  readonly id: string;
  readonly name: string;
  readonly queue: string;
  readonly state: JobState;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly tenantId: string | null;
  readonly runAt: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly finishedAt: number | null;
  readonly lastError: string | null;
  readonly progress: Progress | null;
}

export interface JobPage {
  readonly jobs: readonly JobSummary[];
  readonly next: string | null;
  readonly previous: string | null;
}

export interface StepView {
  readonly name: string;
  readonly attempt: number;
  readonly startedAt: number;
  readonly completedAt: number;
  readonly durationMs: number;
  /** Later attempts handed the stored result instead of running the step (at most). */
  readonly replays: number;
}

export interface JobDetail extends JobSummary {
  readonly input: unknown;
  readonly redacted: readonly string[] | null;
  readonly failure: { code: string | null; message: string; stack: string | null } | null;
  readonly steps: readonly StepView[];
  readonly workerId: string | null;
  readonly idempotencyKey: string;
  readonly backfill: {
    readonly name: string;
    readonly status: string;
    readonly rows: number;
  } | null;
}

export interface WorkerView {
  readonly id: string;
  readonly host: string;
  readonly pid: number | null;
  readonly startedAt: number;
  readonly slots: Readonly<Record<string, number>>;
  readonly inFlight: readonly string[];
  readonly heartbeatAt: number;
}

export interface TaskView {
  readonly name: string;
  readonly declared: boolean;
  readonly cron: string | null;
  readonly tz: string | null;
  readonly jobs: readonly string[];
  readonly paused: boolean;
  readonly lastFire: { readonly occurrenceMs: number; readonly firedAt: number } | null;
  readonly next: number | null;
}

export interface BackfillPass {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly rows: number;
  readonly batches: number;
  readonly jobId: string | null;
  readonly lastError: string | null;
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly completedAt: string | null;
}

export interface CounterBucket {
  readonly bucketStart: number;
  readonly bucketMs: number;
  readonly done: number;
  readonly failed: number;
  readonly dead: number;
  readonly retried: number;
}

/** `12 ms`, `3.4 s`, `5 min`, `2 h`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** An epoch-ms instant as local date and time. */
export function when(ms: number | null): string {
  return ms === null ? '—' : new Date(ms).toLocaleString();
}
