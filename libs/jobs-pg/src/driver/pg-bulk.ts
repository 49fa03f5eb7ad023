import {
  errorCodeOf,
  MAX_BULK_ROWS,
  type JobBulkFilter,
  type JobBulkResult,
  type JobIntrospection,
} from '@ultimat3/jobs';
import type { PgContext } from './pg-context';

interface BulkRecord {
  readonly affected: number;
  readonly remaining: number;
}

/** How often a bulk requeue runs again after a live job took one of its keys between its snapshot and its write. */
const REQUEUE_TRIES = 3;

const narrowing = (filter: JobBulkFilter): (string | null)[] => [
  filter.queue ?? null,
  filter.name ?? null,
  filter.tenantId ?? null,
];

async function bulk(ctx: PgContext, sql: string, values: unknown[]): Promise<JobBulkResult> {
  const { rows } = await ctx.executor.query<BulkRecord>(sql, values);
  const found = rows[0];
  return { affected: found?.affected ?? 0, remaining: Math.max(0, found?.remaining ?? 0) };
}

/**
 * The bulk operator members over `x_jobs`, each ONE statement bounded by {@link MAX_BULK_ROWS} (`job-*-many.sql.ts`).
 * The filter's state was checked by `checkedIntrospection` before; each statement names it again, so a row that
 * changed state meanwhile is left alone.
 */
export function pgBulkIntrospection(
  ctx: PgContext,
): Pick<JobIntrospection, 'requeueMany' | 'removeMany' | 'promoteMany'> {
  return {
    async requeueMany(filter) {
      const values = [ctx.now(), filter.state, ...narrowing(filter), MAX_BULK_ROWS];
      let violation: unknown;
      for (let tries = 1; ; tries++) {
        try {
          return await bulk(ctx, ctx.sql.jobRequeueMany, values);
        } catch (error) {
          // the violation aborted the caller's transaction the executor runs in: no try can pass, tell the violation
          if (violation !== undefined && errorCodeOf(error) === '25P02') throw violation;
          // a live job took a candidate's key after this statement's snapshot: the next snapshot sees it held
          if (errorCodeOf(error) !== '23505' || tries >= REQUEUE_TRIES) throw error;
          violation = error;
        }
      }
    },
    removeMany: (filter) =>
      bulk(ctx, ctx.sql.jobRemoveMany, [filter.state, ...narrowing(filter), MAX_BULK_ROWS]),
    promoteMany: (filter) =>
      bulk(ctx, ctx.sql.jobPromoteMany, [
        ctx.now(),
        filter.state,
        ...narrowing(filter),
        MAX_BULK_ROWS,
      ]),
  };
}
