import type { JsonValue } from '../util/json';

/** Live states: the row still has work ahead of it. */
export const LIVE_STATES = ['ready', 'delayed', 'running', 'suspended'] as const;
/** Finished states: the row ended and only an operator moves it again. */
export const FINISHED_STATES = ['done', 'failed', 'dead', 'cancelled'] as const;
/** States a finished job can be requeued from. */
export const REQUEUEABLE_STATES = FINISHED_STATES;

/** A live state. */
export type LiveState = (typeof LIVE_STATES)[number];
/** A finished state. */
export type FinishedState = (typeof FINISHED_STATES)[number];
/** Every state a job row can be in. */
export type JobState = LiveState | FinishedState;

/** Whether `state` is live (ready, delayed, running, suspended). */
export function isLiveState(state: JobState): state is LiveState {
  return (LIVE_STATES as readonly string[]).includes(state);
}

/** The last progress a run reported. */
export interface JobProgress {
  /** Units of work done so far. */
  readonly done: number;
  /** Units of work in all. */
  readonly total: number;
  /** A free-text note the run reported with it. */
  readonly note?: string;
}

/** One job row as a driver stores it. Times are epoch milliseconds. */
export interface JobRow {
  /** The job id (UUIDv7); stable across attempts. */
  readonly id: string;
  /** The run id (UUIDv7 unless the caller named it); log lines of its attempts carry it. */
  readonly runId: string;
  /** The job's durable name. */
  readonly name: string;
  /** The queue the row waits on. */
  readonly queue: string;
  /** The parsed input, as stored. */
  readonly input: JsonValue;
  /** The key that dedupes a second enqueue while this row is live. */
  readonly idempotencyKey: string;
  /** The declared tenant, or `null` for `tenant: 'none'`. */
  readonly tenantId: string | null;
  /** The actor id that enqueued it (attribution, never authority). */
  readonly enqueuedBy: string | null;
  /** The row's lifecycle state. */
  readonly state: JobState;
  /** Attempts claimed so far; an attempt handed back uncounted is taken off again. */
  readonly attempt: number;
  /** Total attempts the row may take (the retry policy's `attempts`). */
  readonly maxAttempts: number;
  /** Lower sorts first. */
  readonly priority: number;
  /** When the row is due. */
  readonly runAt: number;
  /** When the row was inserted. */
  readonly createdAt: number;
  /** When the row was last written. */
  readonly updatedAt: number;
  /** The worker holding the current claim, while running. */
  readonly workerId: string | null;
  /** The current claim token, while running. A fresh one per claim: it fences every write of that attempt. */
  readonly claim: string | null;
  /** When the current lease lapses, while running. */
  readonly leaseExpiresAt: number | null;
  /** The error the last failure recorded (or the reason a cancel gave), or null. */
  readonly lastError: string | null;
  /** The last progress the run reported, or null. */
  readonly progress: JobProgress | null;
  /** The fleet concurrency key this run counts under, if the job declares a keyed cap. */
  readonly concurrencyKey: string | null;
  /**
   * The W3C traceparent of the span active at the enqueue (null without `@opentelemetry/api` or an active span): the
   * run's span is opened as its child.
   */
  readonly traceparent: string | null;
  /** When the row reached a finished state. */
  readonly finishedAt: number | null;
  /**
   * Why a run of another tenant enqueued it: the `crossTenant(reason, …)` around that enqueue, or null. Both drivers
   * here record it; a driver that does not leaves it absent.
   */
  readonly crossTenantReason?: string | null;
}

/** A row handed to a worker by `claim()`: it is running and carries its claim. */
export interface ClaimedJob extends JobRow {
  /** Always `'running'` for a claimed row. */
  readonly state: 'running';
  /** The worker the row was claimed for. */
  readonly workerId: string;
  /** The fresh claim token that fences every write of this attempt. */
  readonly claim: string;
  /** When the lease lapses unless a heartbeat renews it. */
  readonly leaseExpiresAt: number;
}

/** The fence every write of one attempt carries: the worker and the claim token it was handed. */
export interface ClaimRef {
  /** The worker holding the claim. */
  readonly workerId: string;
  /** The claim token the worker was handed. */
  readonly claim: string;
}

/** The `{ workerId, claim }` a claimed job carries. */
export function claimOf(claimed: ClaimedJob): ClaimRef {
  return { workerId: claimed.workerId, claim: claimed.claim };
}
