import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../util/clock';
import { DEFAULT_LEASE_TTL_MS, SCHEDULER_LEASE_KEY, type LeaseLeader } from './lease-leader';

/** One held lease. */
export interface MemoryLease {
  /** Who holds it. */
  readonly holder: string;
  /** When it lapses unless renewed (epoch ms, the table's clock). */
  readonly expiresAt: number;
}

/**
 * Lease rows in memory, shared by several schedulers in one process (tests of election and hand-over). The table's
 * clock alone decides expiry, as the database's `now()` does for the Postgres lease.
 */
export interface MemoryLeaseTable {
  /** Takes `key` for `holder` when it is free, lapsed or already its own; answers whether `holder` has it now. */
  acquire(key: string, holder: string, ttlMs: number): boolean;
  /** Frees `key` when `holder` has it. */
  release(key: string, holder: string): void;
  /** The live lease on `key`, if any. */
  lease(key?: string): MemoryLease | undefined;
}

/** Creates a {@link MemoryLeaseTable} whose expiry reads `clock` (default `systemClock`). */
export function memoryLeaseTable(options: { readonly clock?: Clock } = {}): MemoryLeaseTable {
  const clock = options.clock ?? systemClock;
  const rows = new Map<string, MemoryLease>();
  const live = (key: string): MemoryLease | undefined => {
    const row = rows.get(key);
    return row !== undefined && row.expiresAt > clock.now() ? row : undefined;
  };
  return {
    acquire(key, holder, ttlMs) {
      const row = live(key);
      if (row !== undefined && row.holder !== holder) return false;
      rows.set(key, { holder, expiresAt: clock.now() + ttlMs });
      return true;
    },
    release(key, holder) {
      if (rows.get(key)?.holder === holder) rows.delete(key);
    },
    lease: (key = SCHEDULER_LEASE_KEY) => live(key),
  };
}

/** Options of {@link memoryLeaseLeader}. */
export interface MemoryLeaseLeaderOptions {
  /** A table shared with other schedulers; without one this process is always the leader (unless demoted). */
  readonly table?: MemoryLeaseTable;
  /** The lease key (default `x:scheduler`). */
  readonly key?: string;
  /** How long the lease holds without a renewal (default 30 s). */
  readonly ttlMs?: number;
  /** Who this is (default a random id). */
  readonly holderId?: string;
}

/** A {@link LeaseLeader} in memory, with a switch for tests. */
export interface MemoryLeaseLeader extends LeaseLeader {
  /** `false` makes every `acquire()` answer false (and gives the row back): a demoted or partitioned node. */
  setLeading(leading: boolean): void;
}

/**
 * The in-memory election: with no table, "always the leader" — the single-process default, which runs two leaders in
 * a rolling update; with a shared {@link MemoryLeaseTable}, one leader among the schedulers sharing it.
 */
export function memoryLeaseLeader(options: MemoryLeaseLeaderOptions = {}): MemoryLeaseLeader {
  const key = options.key ?? SCHEDULER_LEASE_KEY;
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const holderId = options.holderId ?? `scheduler-${randomUUID()}`;
  const table = options.table;
  let leading = true;
  return {
    holderId,
    acquire() {
      if (!leading) {
        table?.release(key, holderId);
        return Promise.resolve(false);
      }
      return Promise.resolve(table === undefined ? true : table.acquire(key, holderId, ttlMs));
    },
    release() {
      table?.release(key, holderId);
      return Promise.resolve();
    },
    setLeading(value) {
      leading = value;
    },
  };
}
