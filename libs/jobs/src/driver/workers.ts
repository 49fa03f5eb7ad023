import { InvariantError } from '../errors/runtime-errors';

/** The most in-flight job ids a worker row carries: a worker holding more lists its first 100. */
export const MAX_WORKER_IN_FLIGHT = 100;

/** What a worker's registry heartbeat writes about it. */
export interface WorkerBeat {
  /** The worker id (`jobWorker`'s `id`). */
  readonly id: string;
  /** The host name of the worker's machine. */
  readonly host: string;
  /** The worker's process id, or null when unknown. */
  readonly pid: number | null;
  /** Epoch ms the worker started. */
  readonly startedAt: number;
  /** The queues it serves, each with its concurrency. */
  readonly slots: Readonly<Record<string, number>>;
  /** Ids of the runs it holds; at most {@link MAX_WORKER_IN_FLIGHT} are stored. */
  readonly inFlight: readonly string[];
}

/** One live worker, as `workers()` answers it. */
export interface WorkerInfo extends WorkerBeat {
  /** The names of the queues it serves, sorted (the keys of `slots`). */
  readonly queues: readonly string[];
  /** Epoch ms of its last registry heartbeat. */
  readonly heartbeatAt: number;
  /** Epoch ms the row stops counting as live: one visibility timeout after the last heartbeat. */
  readonly expiresAt: number;
}

/**
 * Where workers say they are alive: one write per worker per heartbeat interval (never per job), read back by
 * `JobIntrospection.workers()`. A row nobody renews expires one visibility timeout after its last beat.
 */
export interface WorkerRegistry {
  /**
   * Whether the driver's `claim` renews the worker's row when asked (`ClaimOptions.presence`): a worker then lets the
   * claims it sends anyway carry its beats, and beats alone only when none did.
   */
  readonly claimCarriesBeat?: boolean;
  /** Upserts the worker's row, live until `visibilityTimeoutMs` from now. */
  beat(beat: WorkerBeat, visibilityTimeoutMs: number): Promise<void>;
  /** Removes the worker's row (a clean stop). */
  leave(workerId: string): Promise<void>;
}

/** A registry beat a claim carries (`ClaimOptions.presence`): the row to write and how long it stays live. */
export interface ClaimPresence {
  /** The worker row to write. */
  readonly beat: WorkerBeat;
  /** How long the row stays live after this beat, ms. */
  readonly visibilityTimeoutMs: number;
}

/** Refuses a carried beat of another worker than the claiming one: a claim renews its own worker's row only. */
export function assertCarriedBeat(workerId: string, presence: ClaimPresence): void {
  if (presence.beat.id !== workerId) {
    throw new InvariantError(
      `claim of worker ${workerId} carries the registry beat of another worker (${presence.beat.id}).`,
    );
  }
}

/** `ids` bounded to {@link MAX_WORKER_IN_FLIGHT}. */
export function boundInFlight(ids: readonly string[]): readonly string[] {
  return ids.length > MAX_WORKER_IN_FLIGHT ? ids.slice(0, MAX_WORKER_IN_FLIGHT) : ids;
}
