import type { LeaseHolder, LeaseStore } from '@ultimat3/jobs';
import type { RedisContext } from './redis-context';

/**
 * Fleet lease slots ({@link LUA_LEASE_ACQUIRE}): a slot whose TTL passed is free with no cleanup call, pruned whenever
 * its key is acquired or read.
 */
export function redisLeases(ctx: RedisContext): LeaseStore {
  return {
    async acquire(key, holder, limit, ttlMs) {
      return (await ctx.run('leaseAcquire', [key, holder, limit, ttlMs])) === 1;
    },
    async renew(key, holder, ttlMs) {
      return (await ctx.run('leaseRenew', [key, holder, ttlMs])) === 1;
    },
    async release(key, holder) {
      await ctx.client
        .multi()
        .hdel(`${ctx.prefix}ls:${key}`, holder)
        .zrem(`${ctx.prefix}lx:${key}`, holder)
        .exec();
    },
    async holders(key) {
      const reply = await ctx.run('leaseHolders', [key]);
      const flat = Array.isArray(reply) ? reply.map(String) : [];
      const holders: LeaseHolder[] = [];
      for (let i = 0; i + 2 < flat.length; i += 3) {
        holders.push({
          holder: flat[i]!,
          slot: Number(flat[i + 1]),
          expiresAt: Number(flat[i + 2]),
        });
      }
      return holders.sort((a, b) => a.slot - b.slot);
    },
  };
}
