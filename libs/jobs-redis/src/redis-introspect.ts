import {
  DEFAULT_JOB_PAGE,
  JobNotFoundError,
  JobNotPromotableError,
  JobNotRemovableError,
  JobNotRequeueableError,
  requeueHeldError,
  JobPageInvalidError,
  InvariantError,
  MAX_BULK_ROWS,
  MAX_JOB_PAGE,
  idPrefixRange,
  boundedText,
  type JobIntrospection,
  type JobBulkFilter,
  type JobBulkResult,
  type JobListFilter,
  type JobRow,
} from '@ultimat3/jobs';
import { redisCounterIntrospection } from './redis-counters';
import type { RedisContext } from './redis-context';
import { NULL_ARG, toJobRow, toJobRows } from './redis-rows';
import type { ScriptName, ScriptReply } from './redis-scripts';
import { redisTaskMembers } from './redis-tasks';

/** One page of rows, newest first ({@link LUA_LIST}); a cursor must name a stored row. */
async function listRows(ctx: RedisContext, filter: JobListFilter = {}): Promise<JobRow[]> {
  const limit = filter.limit ?? DEFAULT_JOB_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_JOB_PAGE) {
    throw new JobPageInvalidError(
      `limit must be a whole number from 1 to ${MAX_JOB_PAGE}, got ${limit}`,
    );
  }
  if (filter.after !== undefined && filter.before !== undefined) {
    throw new JobPageInvalidError('pass after or before, not both');
  }
  const direction =
    filter.after !== undefined ? 'after' : filter.before !== undefined ? 'before' : '';
  const cursor = filter.after ?? filter.before ?? '';
  const range = filter.idPrefix === undefined ? undefined : idPrefixRange(filter.idPrefix);
  const reply = await ctx.run('list', [
    direction,
    cursor,
    limit,
    filter.queue ?? NULL_ARG,
    filter.name ?? NULL_ARG,
    filter.state ?? NULL_ARG,
    filter.tenantId ?? NULL_ARG,
    range?.low ?? NULL_ARG,
    range?.high ?? NULL_ARG,
    filter.createdFrom ?? NULL_ARG,
    filter.createdTo ?? NULL_ARG,
  ]);
  const [status, ...rows] = Array.isArray(reply) ? reply : [];
  if (status === 'bad-cursor') {
    throw new JobPageInvalidError(
      `the ${direction} cursor ${cursor} names no job`,
      direction || undefined,
    );
  }
  return toJobRows(rows);
}

/** One bulk script ({@link LUA_REQUEUE_MANY} and its siblings) over the filter, bounded by {@link MAX_BULK_ROWS}. */
async function bulk(
  ctx: RedisContext,
  script: ScriptName & ('requeueMany' | 'removeMany' | 'promoteMany'),
  filter: JobBulkFilter,
): Promise<JobBulkResult> {
  const reply = await ctx.run(script, [
    filter.state,
    filter.queue ?? NULL_ARG,
    filter.name ?? NULL_ARG,
    filter.tenantId ?? NULL_ARG,
    MAX_BULK_ROWS,
  ]);
  const [affected, remaining] = Array.isArray(reply) ? reply : [];
  return { affected: Number(affected ?? 0), remaining: Number(remaining ?? 0) };
}

/** The status and row of a script answering `{ status, row }`, or `{ status, … }`. */
function statusOf(reply: ScriptReply): { status: string; rest: ScriptReply[] } {
  const [status, ...rest] = Array.isArray(reply) ? reply : [reply];
  return { status: String(status), rest };
}

/** The row a script answered after its status; a missing one is a broken script, never a silent undefined. */
function rowOf(rest: readonly ScriptReply[]): JobRow {
  const row = toJobRow(rest[0] ?? null);
  if (!row) throw new InvariantError('redis driver: a script answered ok without its row.');
  return row;
}

/**
 * The operator surface over the deployment's keys. Values are checked by `checkedIntrospection` around it. `touch` is
 * told when a call made rows claimable without a script of the driver's (a resumed queue), so that the driver's wake
 * stops answering idle claims empty at once, as it does after its own waking scripts.
 */
export function redisIntrospection(
  ctx: RedisContext,
  touch: () => void = () => undefined,
): JobIntrospection {
  const paused = `${ctx.prefix}paused`;
  return {
    list: (filter) => listRows(ctx, filter),

    async cancel(id, reason) {
      const reply = await ctx.run('cancel', [
        id,
        reason === undefined ? NULL_ARG : boundedText(reason),
      ]);
      return toJobRow(reply);
    },

    async remove(id) {
      const reply = await ctx.run('remove', [id]);
      if (reply === 'not-found') throw new JobNotFoundError(id);
      if (reply === 'running') throw new JobNotRemovableError(id);
    },

    async requeue(id, options) {
      const { status, rest } = statusOf(
        await ctx.run('requeue', [id, options?.fromStep ?? NULL_ARG]),
      );
      if (status === 'not-found') throw new JobNotFoundError(id);
      if (status === 'live') throw new JobNotRequeueableError(id, String(rest[0]));
      if (status === 'held') {
        throw requeueHeldError(id, { id: String(rest[0]), state: String(rest[1]) });
      }
      return rowOf(rest);
    },

    async promote(id) {
      const { status, rest } = statusOf(await ctx.run('promote', [id]));
      if (status === 'not-found') throw new JobNotFoundError(id);
      if (status !== 'ok') throw new JobNotPromotableError(id);
      return rowOf(rest);
    },

    async pauseQueue(queue) {
      await ctx.client.sadd(paused, queue);
    },
    async resumeQueue(queue) {
      await ctx.client.srem(paused, queue);
      touch();
      // its waiting rows are claimable again: announced like an enqueue (see the prelude's wake)
      await ctx.client.spublish(`${ctx.prefix}wake`, queue);
    },
    async pausedQueues() {
      return (await ctx.client.smembers(paused)).sort();
    },
    requeueMany: (filter) => bulk(ctx, 'requeueMany', filter),
    removeMany: (filter) => bulk(ctx, 'removeMany', filter),
    promoteMany: (filter) => bulk(ctx, 'promoteMany', filter),
    ...redisTaskMembers(ctx),
    ...redisCounterIntrospection(ctx),
  };
}
