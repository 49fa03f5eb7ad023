import type { JobNameStats, QueueStats } from '@ultimat3/jobs';
import type { PgContext } from './pg-context';

interface StatsRecord extends Omit<QueueStats, 'oldestReadyMs'> {
  readonly oldest_ready_ms: number;
  /** jsonb, decoded by the client. */
  readonly names: readonly JobNameStats[];
}

/**
 * Counts per queue (see `SQL_STATS`): live and dead-lettered states exact, done and cancelled sampled past 8 MB of
 * table — so a stats read costs the same over a million finished rows as over none — and each queue's live rows per
 * job name.
 */
export async function queueStats(ctx: PgContext): Promise<QueueStats[]> {
  const { rows } = await ctx.executor.query<StatsRecord>(ctx.sql.stats, [ctx.now()]);
  return rows.map(({ oldest_ready_ms, names, ...counts }) => ({
    ...counts,
    oldestReadyMs: Number(oldest_ready_ms),
    names: names.map((entry) => ({ ...entry, oldestReadyMs: Number(entry.oldestReadyMs) })),
  }));
}
