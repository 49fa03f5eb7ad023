/**
 * The scheduler's election. Exactly one scheduler dispatches at a time; the others stand by and ask again every
 * `renewEveryMs`. A Postgres implementation is a row with an expiry (never a session advisory lock: through a pool
 * the lock is released the moment its connection goes back, and every node reads itself as leader).
 */
export interface LeaseLeader {
  /**
   * Takes the lease when it is free or lapsed, or renews it when this holder has it; answers whether this holder
   * leads now. Also the renewal: the scheduler calls it every `renewEveryMs` and demotes itself on `false` or a throw.
   * Renew only `where holder = $me`, so a node that lost the row finds out instead of stealing it back.
   */
  acquire(): Promise<boolean>;
  /** Hands the lease back so a standby can take it at its next ask; a no-op when this holder does not have it. */
  release(): Promise<void>;
  /** Who this process is: random per process (never a hostname — pods sharing one would all lead). */
  readonly holderId: string;
}

/** How long a lease holds without a renewal (default 30 s); a killed leader is replaced within this. */
export const DEFAULT_LEASE_TTL_MS = 30_000;

/** The key the scheduler's lease is held under. */
export const SCHEDULER_LEASE_KEY = 'x:scheduler';
