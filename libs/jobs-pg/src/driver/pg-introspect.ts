import {
  boundedText,
  errorCodeOf,
  JobNotFoundError,
  JobNotPromotableError,
  JobNotRemovableError,
  JobNotRequeueableError,
  requeueHeldError,
  isLiveState,
  type JobIntrospection,
  type JobRow,
  type JobState,
} from '@ultimat3/jobs';
import { isUuid, type PgContext } from './pg-context';
import { pgBulkIntrospection } from './pg-bulk';
import { pgCounterIntrospection } from './pg-counters';
import { listRows } from './pg-list';
import { toJobRow, type JobRecord } from './pg-rows';
import { pgTaskIntrospection } from './pg-tasks';

/** The live-key index: a unique violation on it means a live job took the key between a check and a write. */
const LIVE_KEY_INDEX = 'x_jobs_name_tenant_idempotency_live_idx';

interface RequeueRecord extends Partial<JobRecord> {
  readonly prior_state: JobState;
  readonly holder_id: string | null;
  readonly holder_state: JobState | null;
}

/** Requeues the finished job `id` (dropping its steps from `fromStep` on), or the coded error saying why not. */
async function requeueRow(
  ctx: PgContext,
  id: string,
  options: { readonly fromStep?: string } | undefined,
): Promise<JobRow> {
  if (!isUuid(id)) throw new JobNotFoundError(id);
  let rows: RequeueRecord[];
  try {
    ({ rows } = await ctx.executor.query<RequeueRecord>(ctx.sql.jobRequeue, [
      ctx.now(),
      id,
      options?.fromStep ?? null,
    ]));
  } catch (error) {
    // a live job took the key after this statement's snapshot
    const constraint = (error as { constraint?: unknown }).constraint;
    if (errorCodeOf(error) === '23505' && constraint === LIVE_KEY_INDEX) {
      throw requeueHeldError(id);
    }
    throw error;
  }
  const found = rows[0];
  if (!found) throw new JobNotFoundError(id);
  if (isLiveState(found.prior_state)) throw new JobNotRequeueableError(id, found.prior_state);
  if (found.holder_id) {
    throw requeueHeldError(id, { id: found.holder_id, state: found.holder_state ?? 'live' });
  }
  if (!found.id) throw new JobNotRequeueableError(id, found.prior_state);
  return toJobRow(found as JobRecord);
}

/** The operator surface over `x_jobs` (see the `job-*.sql.ts` statements). */
export function pgIntrospection(ctx: PgContext): JobIntrospection {
  return {
    list: (filter) => listRows(ctx, filter),

    async cancel(id, reason) {
      if (!isUuid(id)) return undefined;
      const { rows } = await ctx.executor.query<JobRecord>(ctx.sql.jobCancel, [
        ctx.now(),
        id,
        reason === undefined ? null : boundedText(reason),
      ]);
      return rows[0] && toJobRow(rows[0]);
    },

    async remove(id) {
      if (!isUuid(id)) throw new JobNotFoundError(id);
      const { rows } = await ctx.executor.query<{ removed: number; state: JobState | null }>(
        ctx.sql.jobRemove,
        [id],
      );
      const result = rows[0];
      if (result?.removed === 1) return;
      if (!result || result.state === null) throw new JobNotFoundError(id);
      throw new JobNotRemovableError(id);
    },

    requeue: (id, options) => requeueRow(ctx, id, options),

    async promote(id) {
      if (!isUuid(id)) throw new JobNotFoundError(id);
      const { rows } = await ctx.executor.query<Partial<JobRecord> & { found: number }>(
        ctx.sql.jobPromote,
        [ctx.now(), id],
      );
      const result = rows[0];
      if (!result || result.found === 0) throw new JobNotFoundError(id);
      if (!result.id) throw new JobNotPromotableError(id);
      return toJobRow(result as JobRecord);
    },

    async pauseQueue(queue) {
      await ctx.executor.query(ctx.sql.queuePause, [ctx.now(), queue]);
    },

    async resumeQueue(queue) {
      await ctx.executor.query(ctx.sql.queueResume, [queue]);
    },

    async pausedQueues() {
      const { rows } = await ctx.executor.query<{ queue: string }>(ctx.sql.queuesPaused, []);
      return rows.map((row) => row.queue);
    },

    ...pgBulkIntrospection(ctx),
    ...pgTaskIntrospection(ctx),
    ...pgCounterIntrospection(ctx),
  };
}
