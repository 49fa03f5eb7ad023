import { RedisEvictionPolicyError } from '@ultimat3/jobs';
import type { Cluster, Redis } from 'ioredis';

/**
 * `INFO memory`'s policy line, read by a script declaring the deployment's prefix as its key: a Cluster client routes it
 * to the master owning the deployment's slot, where every key of the deployment lives (a plain `INFO` goes to any node).
 */
const POLICY_OF_SLOT_OWNER =
  "return string.match(redis.call('INFO', 'memory'), 'maxmemory_policy:(%S+)') or false";

/**
 * The eviction policy of the server holding the deployment `prefix` (`{tag}:`), from `INFO memory` (allowed where
 * CONFIG is renamed away): on a plain client the server it reaches; on a Cluster the master owning the prefix's slot.
 */
export async function evictionPolicy(
  client: Redis | Cluster,
  prefix: string,
): Promise<string | undefined> {
  if (client.isCluster) {
    const policy = await client.eval(POLICY_OF_SLOT_OWNER, 1, prefix);
    return typeof policy === 'string' ? policy : undefined;
  }
  const info = await client.info('memory');
  return /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
}

/**
 * Refuses a server that may evict keys of the deployment `prefix` (`X_REDIS_EVICTION_POLICY`, with the fix): a job
 * store whose rows, indexes or claim tokens can vanish under memory pressure loses jobs silently. `noeviction` makes
 * Redis answer a write with an OOM error instead, which the caller sees. A server that does not report its policy is
 * let through.
 */
export async function assertNoEviction(client: Redis | Cluster, prefix: string): Promise<void> {
  const policy = await evictionPolicy(client, prefix);
  if (policy === undefined || policy === 'noeviction') return;
  throw new RedisEvictionPolicyError(policy);
}
