import type { JobState, PurgeTarget, ResolvedRetention } from '@ultimat3/jobs';
import { keysetPurge, keysetSweep, type KeysetBatch } from './keyset-sweep';
import { iso, retentionCutoff, type PgContext } from './pg-context';

const HOUR_TIER_KEEP_MS = 30 * 24 * 3_600_000;

/** Runs a plain batch statement (answering one row per deleted row) until a batch deletes fewer than the limit. */
async function drainSweep(limit: number, batch: () => Promise<number>): Promise<number> {
  let removed = 0;
  for (;;) {
    const n = await batch();
    removed += n;
    if (n < limit) return removed;
  }
}

/** The finished jobs in `state` older than `keepMs`, swept in keyset batches (their steps cascade). */
function jobsTarget(ctx: PgContext, limit: number, state: JobState, keepMs: number): PurgeTarget {
  return {
    name: `x_jobs:${state}`,
    purgeExpired: (nowMs) =>
      keysetSweep(limit, async (afterAt, afterId) => {
        const { rows } = await ctx.executor.query<KeysetBatch>(ctx.sql.purgeJobs, [
          state,
          retentionCutoff(nowMs, keepMs),
          afterAt,
          afterId,
          limit,
        ]);
        return rows[0];
      }),
  };
}

/** The published outbox rows older than the policy's `finishedMs`, swept in keyset batches. */
function outboxTarget(ctx: PgContext, limit: number, policy: ResolvedRetention): PurgeTarget {
  return {
    name: 'x_outbox',
    purgeExpired: (nowMs) =>
      keysetPurge(
        ctx.executor,
        ctx.sql.purgeOutbox,
        retentionCutoff(nowMs, policy.finishedMs),
        limit,
      ),
  };
}

/** Expired events, 1-hour counter buckets past 30 days and expired worker rows, each drained in plain batches. */
function drainTargets(ctx: PgContext, limit: number): PurgeTarget[] {
  return [
    {
      name: 'x_job_events',
      purgeExpired: () =>
        drainSweep(
          limit,
          async () => (await ctx.executor.query(ctx.sql.purgeEvents, [limit])).rows.length,
        ),
    },
    {
      name: 'x_job_counters',
      purgeExpired: (nowMs) =>
        drainSweep(
          limit,
          async () =>
            (
              await ctx.executor.query(ctx.sql.purgeCounters, [
                iso(nowMs - HOUR_TIER_KEEP_MS),
                limit,
              ])
            ).rows.length,
        ),
    },
    {
      name: 'x_workers',
      purgeExpired: (nowMs) =>
        drainSweep(
          limit,
          async () =>
            (await ctx.executor.query(ctx.sql.purgeWorkers, [iso(nowMs), limit])).rows.length,
        ),
    },
  ];
}

/**
 * The PostgreSQL driver's own tables as retention targets: finished jobs per state (done, failed and cancelled after
 * `finishedMs`, dead after `deadMs`; steps cascade), published outbox rows after `finishedMs`, expired events (on the
 * database's clock, the bus's one clock), 1-hour counter buckets past 30 days, and worker rows that expired. Every
 * statement is one bounded batch of `batchSize` (see `SQL_PURGE_JOBS`).
 */
export function pgPurgeTargets(ctx: PgContext, policy: ResolvedRetention): readonly PurgeTarget[] {
  const limit = policy.batchSize;
  return [
    jobsTarget(ctx, limit, 'done', policy.finishedMs),
    jobsTarget(ctx, limit, 'failed', policy.finishedMs),
    jobsTarget(ctx, limit, 'cancelled', policy.finishedMs),
    jobsTarget(ctx, limit, 'dead', policy.deadMs),
    outboxTarget(ctx, limit, policy),
    ...drainTargets(ctx, limit),
  ];
}
