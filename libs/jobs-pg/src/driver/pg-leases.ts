import type { LeaseHolder, LeaseStore } from '@ultimat3/jobs';
import type { PgContext } from './pg-context';
import { toMs, type PgTime } from './pg-rows';

/** How often an acquire that lost its free slot to a concurrent acquire looks for the next one. */
const ACQUIRE_RETRIES = 5;

interface AcquireRecord {
  readonly renewed: number | null;
  readonly taken: number | null;
  readonly candidate: number | null;
}

/**
 * Fleet slots in `x_job_leases` (see the `lease-*.sql.ts` statements): one row per held slot, free once its expiry
 * passes — a SIGKILLed holder needs no cleanup call.
 */
export function pgLeases(ctx: PgContext): LeaseStore {
  return {
    async acquire(key, holder, limit, ttlMs) {
      for (let run = 0; run <= ACQUIRE_RETRIES; run++) {
        const { rows } = await ctx.executor.query<AcquireRecord>(ctx.sql.leaseAcquire, [
          ctx.now(),
          key,
          holder,
          Math.max(0, Math.floor(limit)),
          ttlMs,
        ]);
        const result = rows[0];
        if (!result) return false;
        if (result.renewed !== null || result.taken !== null) return true;
        if (result.candidate === null) return false; // every slot is held
        // a concurrent acquire took the free slot this one aimed at: look again
      }
      return false;
    },

    async renew(key, holder, ttlMs) {
      const { rowCount } = await ctx.executor.query(ctx.sql.leaseRenew, [
        ctx.now(),
        key,
        holder,
        ttlMs,
      ]);
      return rowCount > 0;
    },

    async release(key, holder) {
      await ctx.executor.query(ctx.sql.leaseRelease, [key, holder]);
    },

    async holders(key) {
      const { rows } = await ctx.executor.query<{
        holder: string;
        slot: number;
        expires_at: PgTime;
      }>(ctx.sql.leaseHolders, [ctx.now(), key]);
      return rows.map((row): LeaseHolder => ({
        holder: row.holder,
        slot: row.slot,
        expiresAt: toMs(row.expires_at),
      }));
    },
  };
}
