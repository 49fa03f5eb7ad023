/** One holder of a fleet lease slot. */
export interface LeaseHolder {
  /** Who holds it: the job id of the run. */
  readonly holder: string;
  /** The slot index within the key's limit. */
  readonly slot: number;
  /** When the slot lapses unless renewed (epoch ms). */
  readonly expiresAt: number;
}

/**
 * Fleet-wide slots every replica sees: a row per held slot, renewed by the heartbeat and reclaimed by TTL after a
 * SIGKILL. Keys are `job:<name>` (a plain cap) or `job-key:<encoded name>:<key>` (a keyed cap).
 */
export interface LeaseStore {
  /** Takes a free slot of `key` for `holder` (or renews the one it holds); answers whether it holds one now. */
  acquire(key: string, holder: string, limit: number, ttlMs: number): Promise<boolean>;
  /** Extends the holder's slot; answers false when the slot is no longer its own. */
  renew(key: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Frees the holder's slot; a no-op when it holds none. */
  release(key: string, holder: string): Promise<void>;
  /** The live holders of one key, in slot order. */
  holders(key: string): Promise<readonly LeaseHolder[]>;
}
