/** What a claim and a rescue take and answer: the queues and names, the options, and the rows buried. */
import type { ClaimedJob, JobRow } from './job-row';
import type { ClaimPresence } from './workers';

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
 * `JobDriver.rescue` on its own, or `claimAndRescue`, the worker's claim that rescues in the same round
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
   * registry says `WorkerRegistry.claimCarriesBeat`; a claim that throws renewed nothing.
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

/** Options of a standalone `JobDriver.rescue`. */
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

/** What `claimAndRescue` answers: the rows handed out, and what the rescue in the same pass did. */
export interface ClaimAndRescueResult {
  /** The rows handed out to the worker. */
  readonly claimed: readonly ClaimedJob[];
  /** What the rescue of the same pass did. */
  readonly rescued: RescueResult;
}
