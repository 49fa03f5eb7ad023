import { InvariantError, type EnqueueRequest } from '@ultimat3/jobs';
import type { PgContext } from './pg-context';
import type { WakeMemo } from './pg-enqueue-wake-memo';

/** What `SQL_ENQUEUE_INSERT`, `SQL_ENQUEUE_INSERT_PLAIN` and `SQL_ENQUEUE_QUIET` answer for a row they created. */
interface CreatedRecord {
  /** Its `created_at`, epoch seconds (numeric text). */
  readonly created_s: string | number;
}

/** PostgreSQL's unique_violation: a row holds an id or a live key the statement would write. */
export const isUniqueViolation = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === '23505';

/**
 * One of the plain inserts (`SQL_ENQUEUE_QUIET`, `SQL_ENQUEUE_INSERT_PLAIN`): the created row's answer, undefined when
 * it created nothing (the quiet statement's guess of the slot was wrong), or `held` when it failed because a stored row
 * holds the id or the live key.
 */
async function insertPlain(
  ctx: PgContext,
  text: string,
  values: readonly unknown[],
): Promise<CreatedRecord | 'held' | undefined> {
  try {
    const { rows } = await ctx.executor.query<CreatedRecord>(text, values);
    return rows[0];
  } catch (error) {
    if (isUniqueViolation(error)) return 'held';
    throw error;
  }
}

/**
 * The single enqueue's fast path: inserts the job and answers true, or answers false when a stored row holds its id
 * or live key (the caller then judges the request with `SQL_ENQUEUE`). `values`: its 15 parameters
 * (`singleEnqueueParams`).
 *
 * With `memo`, over a shared executor, a job whose announcement is settled — due past the wake's window, or in a slot
 * one of this driver's committed enqueues already holds (see {@link WakeMemo}) — goes as `SQL_ENQUEUE_QUIET`, without
 * the wake's sub-select; the rest, and any the quiet statement turned back, as `SQL_ENQUEUE_INSERT_PLAIN`, which
 * announces its queue as `SQL_ENQUEUE_INSERT` does. Neither inserts speculatively: a held id or key fails them with
 * 23505, in a transaction of their own. Each created row's answer teaches the memo. Without it (an executor inside the
 * caller's transaction) every job goes as `SQL_ENQUEUE_INSERT`, whose `on conflict do nothing` answers no row instead.
 */
export async function insertOne(
  ctx: PgContext,
  request: EnqueueRequest,
  values: readonly unknown[],
  memo?: WakeMemo,
): Promise<boolean> {
  if (memo === undefined || ctx.executor.shared !== true) {
    const { rows } = await ctx.executor.query<CreatedRecord>(ctx.sql.enqueueInsert, values);
    return rows.length > 0;
  }
  const now = values[0];
  let sentAt = memo.now();
  const guard = memo.guard(request, typeof now === 'string' ? Date.parse(now) : undefined, sentAt);
  if (guard !== undefined) {
    const quiet = await insertPlain(ctx, ctx.sql.enqueueQuiet, [...values, guard]);
    if (quiet === 'held') return false;
    if (quiet !== undefined) {
      memo.learn(request, quiet.created_s, sentAt, memo.now());
      return true;
    }
    sentAt = memo.now();
  }
  const created = await insertPlain(ctx, ctx.sql.enqueueInsertPlain, values);
  if (created === 'held') return false;
  if (created === undefined) {
    throw new InvariantError(`jobs-pg: the insert of job ${request.id} answered no row.`);
  }
  memo.learn(request, created.created_s, sentAt, memo.now());
  return true;
}
