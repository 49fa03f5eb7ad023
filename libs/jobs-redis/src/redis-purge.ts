import {
  COUNTER_TIERS,
  type JobState,
  type PurgeTarget,
  type ResolvedRetention,
} from '@ultimat3/jobs';
import type { RedisContext } from './redis-context';

/**
 * The Redis driver's retention targets: finished jobs per state with their steps (done, failed and cancelled after
 * `finishedMs`, dead after `deadMs`), in batches of `batchSize` until a batch takes fewer; last-tier counter buckets
 * past their keep; expired events (on the bus's one clock, as the bus purges them); and expired worker rows (on the
 * server's clock, which stamped their expiry), left behind by workers that died without a clean stop.
 */
export function redisPurgeTargets(
  ctx: RedisContext,
  policy: ResolvedRetention,
): readonly PurgeTarget[] {
  const jobs = (state: JobState, keepMs: number): PurgeTarget => ({
    name: `x_jobs:${state}`,
    async purgeExpired(nowMs) {
      let removed = 0;
      for (;;) {
        const n = Number(await ctx.run('purgeJobs', [state, nowMs - keepMs, policy.batchSize]));
        removed += n;
        if (n < policy.batchSize) return removed;
      }
    },
  });
  const last = COUNTER_TIERS[COUNTER_TIERS.length - 1]!;
  return [
    jobs('done', policy.finishedMs),
    jobs('failed', policy.finishedMs),
    jobs('cancelled', policy.finishedMs),
    jobs('dead', policy.deadMs),
    {
      name: 'x_job_counters',
      purgeExpired: async (nowMs) =>
        Number(await ctx.run('purgeCounters', [last.bucketMs, nowMs - last.keepMs])),
    },
    {
      name: 'x_events',
      purgeExpired: async () => Number(await ctx.run('eventPurge', ['expired'])),
    },
    {
      name: 'x_workers',
      purgeExpired: async () => Number(await ctx.run('purgeWorkers', [])),
    },
  ];
}
