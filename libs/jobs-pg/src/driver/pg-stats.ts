import type { QueueStats } from '@ultimat3/jobs';
import type { PgContext } from './pg-context';

/** Counts per queue (see `SQL_STATS`). */
export async function queueStats(ctx: PgContext): Promise<QueueStats[]> {
  const { rows } = await ctx.executor.query<QueueStats & { oldest_ready_ms: number }>(
    ctx.sql.stats,
    [ctx.now()],
  );
  return rows.map(({ oldest_ready_ms, ...counts }) => ({
    ...counts,
    oldestReadyMs: Number(oldest_ready_ms),
  }));
}
