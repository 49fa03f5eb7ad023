import { RedisEvictionPolicyError } from '@ultimat3/jobs';
import type { Cluster, Redis } from 'ioredis';

/** The eviction policy of the server `client` reaches, from `INFO memory` (allowed where CONFIG is renamed away). */
export async function evictionPolicy(client: Redis | Cluster): Promise<string | undefined> {
  const info = await client.info('memory');
  return /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
}

/**
 * Refuses a server that may evict keys (`X_REDIS_EVICTION_POLICY`, with the fix): a job store whose rows, indexes or
 * claim tokens can vanish under memory pressure loses jobs silently. `noeviction` makes Redis answer a write with an
 * OOM error instead, which the caller sees. A server that does not report its policy is let through.
 */
export async function assertNoEviction(client: Redis | Cluster): Promise<void> {
  const policy = await evictionPolicy(client);
  if (policy === undefined || policy === 'noeviction') return;
  throw new RedisEvictionPolicyError(policy);
}
