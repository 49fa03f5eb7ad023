import { randomUUID } from 'node:crypto';
import type { LeaseStore } from '../driver/lease-store';
import { DEFAULT_LEASE_TTL_MS, SCHEDULER_LEASE_KEY, type LeaseLeader } from './lease-leader';

/** Options of {@link leaseStoreLeader}. */
export interface LeaseStoreLeaderOptions {
  /** The driver's fleet lease store (`driver.leases`): rows with an expiry on the store's own clock. */
  readonly leases: LeaseStore;
  /** The lease key (default `x:scheduler`). */
  readonly key?: string;
  /** How long the lease holds without a renewal (default 30 s); renew every third of it. */
  readonly ttlMs?: number;
  /** Who this is (default a random id per process). */
  readonly holderId?: string;
}

/**
 * The election over a driver's fleet lease store: ONE slot of one key. `LeaseStore.acquire` already takes a free or
 * lapsed slot and renews the holder's own, so a driver whose lease store passes the conformance suite — memory or
 * Postgres (`x_job_leases`, expiry on the database's clock) — is a scheduler election with no code of its own.
 */
export function leaseStoreLeader(options: LeaseStoreLeaderOptions): LeaseLeader {
  const key = options.key ?? SCHEDULER_LEASE_KEY;
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const holderId = options.holderId ?? `scheduler-${randomUUID()}`;
  return {
    holderId,
    acquire: () => options.leases.acquire(key, holderId, 1, ttlMs),
    release: () => options.leases.release(key, holderId),
  };
}
