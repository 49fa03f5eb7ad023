import { leaseStoreLeader, type Clock, type LeaseLeader } from '@ultimat3/jobs';
import { postgresJobDriver } from '../driver/pg-driver';
import type { PgExecutor } from '../executor/pg-executor';

/** Options of {@link postgresLeaseLeader}. */
export interface PostgresLeaseLeaderOptions {
  /** Runs the lease statements: a pool is fine, nothing is held on a session. */
  readonly executor: PgExecutor;
  /**
   * The clock the lease's expiry is computed and compared on. Absent (the default), the database's `now()` — one clock
   * for every node, whatever their own clocks say. A test passes the frozen clock it drives the schedulers with.
   */
  readonly clock?: Clock;
  /** The schema holding the tables `migrate()` created (default: found through `search_path`). */
  readonly schema?: string;
  /** The lease key (default `x:scheduler`). */
  readonly key?: string;
  /** How long the lease holds without a renewal (default 30 s); the scheduler renews every third of it. */
  readonly ttlMs?: number;
  /** Who this is (default a random id per process — never a hostname). */
  readonly holderId?: string;
}

/**
 * The scheduler's election on PostgreSQL: slot 0 of one key in `x_job_leases`, a row with an expiry — never a session
 * advisory lock, which a transaction-mode pooler hands to every node. `SQL_LEASE_ACQUIRE` renews only
 * `where holder = $me` and only while the row is live, takes the slot when it is free or lapsed, and compares on the
 * database clock; so a node that lost the row finds out at its next renewal (and the scheduler demotes itself)
 * instead of stealing it back. The same election `leaseStoreLeader({ leases: driver.leases })` runs, by name.
 */
export function postgresLeaseLeader(options: PostgresLeaseLeaderOptions): LeaseLeader {
  const { leases } = postgresJobDriver(options);
  return leaseStoreLeader({
    leases,
    ...(options.key === undefined ? {} : { key: options.key }),
    ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
    ...(options.holderId === undefined ? {} : { holderId: options.holderId }),
  });
}
