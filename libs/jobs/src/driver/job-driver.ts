import type { JsonValue } from '../util/json';
import type { ClaimedJob, ClaimRef, JobProgress, JobRow } from './job-row';
import type { JobIntrospection } from './introspection';
import type { LeaseStore } from './lease-store';
import type { NackOptions } from './nack';
import type { PurgeTarget, ResolvedRetention } from './retention';
import type { WorkerRegistry } from './workers';
import type {
  ClaimAndRescueResult,
  ClaimOptions,
  RescueOptions,
  RescueRequest,
  RescueResult,
} from './claim-options';

export * from './nack';
export * from './claim-options';
export { claimAndRescue } from './claim-and-rescue';

/** One row to enqueue. Ids are minted by the caller, so they are known before the write lands. */
export interface EnqueueRequest {
  /** The job id. A second enqueue under an id that already names a row, live or finished, inserts nothing. */
  readonly id: string;
  /** The run id (UUID). */
  readonly runId: string;
  /** The job's durable name. */
  readonly name: string;
  /** The queue to put the row on. */
  readonly queue: string;
  /** The parsed input, as stored. */
  readonly input: JsonValue;
  /** The key a live row of the same name and tenant dedupes on. */
  readonly idempotencyKey: string;
  /** The declared tenant, or null for `tenant: 'none'`. */
  readonly tenantId: string | null;
  /** The actor id that enqueued it (attribution, never authority), or null. */
  readonly enqueuedBy: string | null;
  /** Epoch ms the row is due; a future time makes it `delayed`. */
  readonly runAt: number;
  /** Total attempts the row may take. */
  readonly maxAttempts: number;
  /** Lower runs first. */
  readonly priority: number;
  /** What a live row holding the same `(name, tenantId, idempotencyKey)` means: dedupe to it, or an error. */
  readonly onConflict: 'dedupe' | 'error';
  /** The fleet concurrency key the run counts under, or null. */
  readonly concurrencyKey: string | null;
  /** The W3C traceparent of the span active at the enqueue, or null. */
  readonly traceparent: string | null;
  /**
   * The `crossTenant(reason, …)` this row was enqueued under, when a run enqueued it for a tenant other than its own
   * (absent or null otherwise). Stored on the row: an audit reads why a run acted for another tenant.
   */
  readonly crossTenantReason?: string | null;
}

/** What an enqueue answered: the ids of the job that holds the key, and whether that was an existing one. */
export interface EnqueueResult {
  /** The id of the job holding the key: the new row, or the existing one when `deduped`. */
  readonly id: string;
  /** That job's run id. */
  readonly runId: string;
  /** True when nothing was inserted: the id already named a row, or a live row held the idempotency key. */
  readonly deduped: boolean;
}

/** Settle a run as completed. */
export interface AckOptions extends ClaimRef {
  /** How long the attempt ran, in ms. */
  readonly durationMs?: number;
}

/** One run of a batched ack ({@link JobDriver.ackMany}): the row, and the claim its settle is fenced on. */
export interface AckManyItem extends AckOptions {
  /** The id of the job to settle. */
  readonly jobId: string;
}

/**
 * The live rows of one job name within a queue: how a row whose name no worker serves becomes visible (it waits, its
 * `oldestReadyMs` grows). Finished rows are counted per queue only.
 */
export interface JobNameStats {
  /** The job name. */
  readonly name: string;
  /** Rows of the name that are `ready`. */
  readonly ready: number;
  /** Rows of the name that are `delayed`. */
  readonly delayed: number;
  /** Rows of the name that are `running`. */
  readonly running: number;
  /** Rows of the name that are `suspended`. */
  readonly suspended: number;
  /** Age in ms of the name's oldest due ready (or due delayed) row, or 0. */
  readonly oldestReadyMs: number;
}

/** Per-queue counts. */
export interface QueueStats {
  /** The queue. */
  readonly queue: string;
  /** Rows in `ready`. */
  readonly ready: number;
  /** Rows in `delayed`. */
  readonly delayed: number;
  /** Rows in `running`. */
  readonly running: number;
  /** Rows in `suspended`. */
  readonly suspended: number;
  /** Rows in `done`. */
  readonly done: number;
  /** Rows in `failed`. */
  readonly failed: number;
  /** Rows in `dead`. */
  readonly dead: number;
  /** Rows in `cancelled`. */
  readonly cancelled: number;
  /** Age in ms of the oldest due ready row, or 0. */
  readonly oldestReadyMs: number;
  /** One entry per job name holding live rows (ready, delayed, running, suspended), in code-point order. */
  readonly names: readonly JobNameStats[];
}

/** One stored step of a run. */
export interface StepRecord {
  /** The step's name (its replay key). */
  readonly name: string;
  /** The stored result; absent when the step returned nothing (`undefined`). */
  readonly output?: JsonValue;
  /** The attempt that completed it. */
  readonly attempt: number;
  /** When the step started (epoch ms). */
  readonly startedAt: number;
  /** When the step's result was stored (epoch ms). */
  readonly completedAt: number;
}

/** Durable step storage. Writes are fenced on the claim. */
export interface StepStore {
  /** Every completed step of the job, in completion order. */
  load(jobId: string): Promise<readonly StepRecord[]>;
  /** Writes one completed step; answers false (and writes nothing) when the claim no longer holds the row. */
  save(jobId: string, claim: ClaimRef, step: StepRecord): Promise<boolean>;
}

/**
 * The one interface every backend implements, pinned by `jobDriverConformance`. A behaviour the suite does not pin is
 * not guaranteed.
 */
export interface JobDriver {
  /** A short name for logs (`memory`, `postgres`). */
  readonly kind: string;
  /** Inserts one row, or answers the row that holds its id or live key. */
  enqueue(request: EnqueueRequest): Promise<EnqueueResult>;
  /** Inserts many rows in one write; answers one result per request, in order. */
  enqueueMany(requests: readonly EnqueueRequest[]): Promise<readonly EnqueueResult[]>;
  /**
   * Claims due waiting rows of the slots' queues, ordered by priority, run time, then id. A lapsed lease is left as it
   * is (neither re-taken nor buried) for a rescue: a driver may skip looking for one at all (on PostgreSQL, a walk of
   * the lease index that a held snapshot can make long).
   */
  claim(options: ClaimOptions): Promise<readonly ClaimedJob[]>;
  /**
   * Rescues the lapsed leases of `options.slots`' queues (their worker died), on its own: each lapsed row with
   * attempts left of a served name goes back to waiting (`ready`, attempt, run time and priority kept, no worker nor
   * claim), so the next claim takes it in claim order with attempt + 1 exactly as a rescuing claim would have; each on
   * its final attempt is buried (`dead`, or `failed` when named in `dropExhausted`; `LEASE_LAPSED_FINAL_ATTEMPT`),
   * counted, and answered. Names a slot does not serve follow {@link RescueSlot.names}. Takes nothing itself; at
   * most 1,000 lapsed rows per queue per call. A worker rescues through {@link claimAndRescue}.
   */
  rescue(options: RescueOptions): Promise<RescueResult>;
  /**
   * A rescue and a claim in ONE round trip (one statement on PostgreSQL, one pipelined write on Redis, one pass in
   * memory): the same outcome as {@link JobDriver.rescue} of the claim's slots (`visibilityTimeoutMs` and `rescue`'s
   * `dropExhausted`) followed by {@link JobDriver.claim}`(options)` — a lapsed lease of a served name with attempts
   * left is handed out with attempt + 1 in claim order, a final attempt buried and answered apart from the claimed
   * rows. Optional: {@link claimAndRescue} (the only caller a worker needs) sends rescue then claim on a driver without
   * it. A driver wrapper that intercepts `claim` must intercept this too, or leave it out.
   */
  claimRescuing?(options: ClaimOptions, rescue: RescueRequest): Promise<ClaimAndRescueResult>;
  /** Settles a run done. Fenced on the claim: answers whether it landed. */
  ack(jobId: string, options: AckOptions): Promise<boolean>;
  /**
   * Settles many runs done in ONE write, each fenced on its own claim exactly as {@link JobDriver.ack} is: answers,
   * per item in order, whether that settle landed. An item naming a row twice lands at most once. Optional: a worker
   * on a driver without it settles one ack at a time.
   */
  ackMany?(items: readonly AckManyItem[]): Promise<readonly boolean[]>;
  /**
   * Hands a run back as its {@link NackOptions.kind} says (retry, handBack, park, dead, fail). Fenced on the claim:
   * answers whether it landed.
   */
  nack(jobId: string, options: NackOptions): Promise<boolean>;
  /** Renews the lease by `visibilityTimeoutMs` from now. Fenced on the claim: answers whether it landed. */
  heartbeat(jobId: string, claim: ClaimRef, visibilityTimeoutMs: number): Promise<boolean>;
  /** Writes a run's progress. Fenced on the claim. */
  recordProgress(jobId: string, claim: ClaimRef, progress: JobProgress): Promise<boolean>;
  /** Counts per queue, with each queue's live rows per job name. */
  stats(): Promise<readonly QueueStats[]>;
  /**
   * Proves the backend answers with its cheapest statement (PostgreSQL `select 1`); rejects while it is out of reach.
   * Optional: a health check on a driver without it reads `stats()` instead. It sets no timeout of its own — the
   * caller bounds it.
   */
  ping?(): Promise<void>;
  /** One row by id. */
  get(jobId: string): Promise<JobRow | undefined>;
  /**
   * A lower bound (epoch ms) on the run time of every row of `queue` waiting, when the driver knows one without a
   * read (PostgreSQL: the low water its own claims keep), else undefined. Never a correctness dependency: a worker
   * reads it to skip a check that could find nothing (no row of the queue can have waited long). Optional.
   */
  waitingBound?(queue: string): number | undefined;
  /** Durable steps. */
  readonly steps: StepStore;
  /** The operator surface, when the driver has one. */
  readonly introspect?: JobIntrospection;
  /** The fleet lease store, when the driver has one. */
  readonly leases?: LeaseStore;
  /** Where workers record that they are alive (`workers()` reads it), when the driver has one. */
  readonly workerRegistry?: WorkerRegistry;
  /**
   * The sweep of the driver's own tables under `policy` (finished jobs with their steps, and whatever else it keeps
   * that expires), one target per table or state, when the driver has one. Each target deletes in bounded batches.
   */
  purgeTargets?(policy: ResolvedRetention): readonly PurgeTarget[];
  /** Releases connections. Idempotent. */
  close(): Promise<void>;
}
