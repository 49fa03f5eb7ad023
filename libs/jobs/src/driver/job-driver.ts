import type { JsonValue } from '../util/json';
import type { ClaimedJob, ClaimRef, JobProgress, JobRow } from './job-row';
import type { JobIntrospection } from './introspection';
import type { LeaseStore } from './lease-store';
import type { NackOptions } from './nack';
import type { PurgeTarget, ResolvedRetention } from './retention';
import type { ClaimPresence, WorkerRegistry } from './workers';

export * from './nack';
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

/** One queue a claim may take rows from, and at most how many. */
export interface ClaimSlot {
  /** The queue to claim from. */
  readonly queue: string;
  /** Rows to claim for the queue's free slots, whatever their attempt. */
  readonly limit: number;
  /**
   * Rows the claim may take beyond `limit`, to be held until a slot frees (a worker's prefetch): only rows the claim
   * does not put on their final attempt (`attempt + 1 < maxAttempts`). A worker that dies holding them loses an attempt
   * of each, as it does of the runs it died with, but never a last one: no row is buried dead without having run.
   * Of the first `limit + ahead` due rows in claim order, the first `limit` are taken and the rest only if not final.
   * Default 0.
   */
  readonly ahead?: number;
  /**
   * The job names the claim may hand out from this queue: the ones the claiming worker serves there. A row of any
   * other name is left as it is — waiting rows stay waiting with their attempt untouched, a lapsed lease is not
   * re-taken — for a worker that serves it, so during a rolling deploy an old worker never claims (and buries as
   * `X_JOB_UNKNOWN`) a job only the new build declares. Empty: nothing of this queue is taken. Absent: every name,
   * which suits an operator tool or a test, not a worker (on PostgreSQL such a scan sorts the queue's due rows).
   * The one exception is burying: see {@link RescueSlot.names}.
   */
  readonly names?: readonly string[];
}

/**
 * Options of one claim pass. A claim takes waiting rows only: a lapsed lease (its worker died) is rescue's business —
 * {@link JobDriver.rescue} on its own, or {@link claimAndRescue}, the worker's claim that rescues in the same round
 * trip.
 */
export interface ClaimOptions {
  /** The claiming worker; claimed rows carry it. */
  readonly workerId: string;
  /** Every queue with a free slot, each with its free slot count. One claim covers them all. */
  readonly slots: readonly ClaimSlot[];
  /** How long the claimed rows stay invisible to other claims without a heartbeat. */
  readonly visibilityTimeoutMs: number;
  /** Tenants whose rows this claim skips (they are at a per-process cap of the claiming worker). */
  readonly excludeTenants?: readonly string[];
  /**
   * The claiming worker's registry beat, when one is due: the claim also upserts the worker's row, exactly as
   * `workerRegistry.beat(presence.beat, presence.visibilityTimeoutMs)` would, in the same write — so an idle worker's
   * presence costs no statement of its own. `presence.beat.id` is `workerId`. A worker sets it only when its driver's
   * registry says {@link WorkerRegistry.claimCarriesBeat}; a claim that throws renewed nothing.
   */
  readonly presence?: ClaimPresence;
}

/** The job names a rescue may act on in one queue: a {@link ClaimSlot} is one (its `limit` and `ahead` unread). */
export interface RescueSlot {
  /** The queue the names belong to. */
  readonly queue: string;
  /**
   * The names the rescuing worker serves in `queue`; absent: every name. A lapsed lease of another name is not made
   * claimable again. One on its final attempt is buried once it has lapsed for `visibilityTimeoutMs` more, whatever its
   * name: burying runs no job code, a worker serving the name (which buries at once, with its declared
   * `retry.deadLetter` and `onSettled`) would have done it well before, and a row whose every serving worker is gone
   * would otherwise stay `running` forever. Buried by a worker that does not know its name, it goes `dead` (kept,
   * requeueable) and no `onSettled` runs.
   */
  readonly names?: readonly string[];
}

/** What a rescue needs beyond its queues: how the rows it buries are settled. */
export interface RescueRequest {
  /** Job names declaring `retry.deadLetter: false`: their exhausted rows are buried `failed`, not `dead`. */
  readonly dropExhausted?: ReadonlySet<string>;
}

/** Options of a standalone {@link JobDriver.rescue}. */
export interface RescueOptions extends RescueRequest {
  /** The queues to rescue (paused ones are left alone), each with the names served there. */
  readonly slots: readonly RescueSlot[];
  /** The claiming workers' visibility timeout: how much longer an unserved name's final attempt waits to be buried. */
  readonly visibilityTimeoutMs: number;
}

/** What a rescue did: the rows it buried (lease lapsed on their final attempt), settled and counted already. */
export interface RescueResult {
  /** The rows buried, as settled. */
  readonly buried: readonly JobRow[];
}

/** What {@link claimAndRescue} answers: the rows handed out, and what the rescue in the same pass did. */
export interface ClaimAndRescueResult {
  /** The rows handed out to the worker. */
  readonly claimed: readonly ClaimedJob[];
  /** What the rescue of the same pass did. */
  readonly rescued: RescueResult;
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
