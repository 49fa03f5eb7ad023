import { InvariantError, type EnqueueRequest } from '@ultimat3/jobs';
import type { PgContext } from './pg-context';
import type { HandOffMemo } from './pg-enqueue-hand-off-memo';
import type { WakeMemo } from './pg-enqueue-wake-memo';

/** What `SQL_ENQUEUE_INSERT`, `SQL_ENQUEUE_INSERT_PLAIN` and `SQL_ENQUEUE_QUIET` answer for a row they created. */
interface CreatedRecord {
  /** Its `created_at`, epoch seconds (numeric text). */
  readonly created_s: string | number;
  /** `SQL_ENQUEUE_HAND_OFF` only: whether it inserted the row claimed for an idle worker. */
  readonly handed?: boolean;
  /** `SQL_ENQUEUE_HAND_OFF` only: whether any worker is registered for the row's queue. */
  readonly registered?: boolean;
}

/** PostgreSQL's unique_violation: a row holds an id or a live key the statement would write. */
export const isUniqueViolation = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === '23505';

/** PostgreSQL's undefined_table: the schema predates a table the statement names. */
const isUndefinedTable = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === '42P01';

/**
 * The hand-off insert (`SQL_ENQUEUE_HAND_OFF`) as {@link insertPlain} answers it, or `absent` when the schema has no
 * `x_job_hand_offs` yet (migration 0018 not applied: a build ahead of its migration) — the statement then wrote
 * nothing, in a transaction of its own.
 */
async function insertHandOff(
  ctx: PgContext,
  values: readonly unknown[],
): Promise<CreatedRecord | 'held' | 'absent' | undefined> {
  try {
    return await insertPlain(ctx, ctx.sql.enqueueHandOff, values);
  } catch (error) {
    if (isUndefinedTable(error)) return 'absent';
    throw error;
  }
}

/**
 * The single enqueue through `SQL_ENQUEUE_HAND_OFF`: true when it created the row (handed or not; both memos learn
 * from it), false when a stored row holds its id or key, undefined when the schema lacks the hand-off's table — the
 * memo then stops trying for a while and the caller inserts the plain way.
 */
async function handOver(
  ctx: PgContext,
  request: EnqueueRequest,
  values: readonly unknown[],
  memo: WakeMemo,
  handOff: HandOffMemo,
): Promise<boolean | undefined> {
  const sent = memo.now();
  const handed = await insertHandOff(ctx, values);
  if (handed === 'held') return false;
  if (handed === 'absent') {
    handOff.absent();
    return undefined;
  }
  if (handed === undefined) {
    throw new InvariantError(`jobs-pg: the insert of job ${request.id} answered no row.`);
  }
  memo.learn(request, handed.created_s, sent, memo.now());
  handOff.learn(request.queue, handed.handed === true || handed.registered === true);
  return true;
}

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
 *
 * With `handOff` too, a job due now whose queue's last hand-off did not miss lately ({@link HandOffMemo}) goes as
 * `SQL_ENQUEUE_HAND_OFF`: `SQL_ENQUEUE_INSERT_PLAIN` that inserts the row claimed for an idle worker registered for it,
 * when there is one, and tells that worker alone.
 */
export async function insertOne(
  ctx: PgContext,
  request: EnqueueRequest,
  values: readonly unknown[],
  memo?: WakeMemo,
  handOff?: HandOffMemo,
): Promise<boolean> {
  if (memo === undefined || ctx.executor.shared !== true) {
    const { rows } = await ctx.executor.query<CreatedRecord>(ctx.sql.enqueueInsert, values);
    return rows.length > 0;
  }
  const now = values[0];
  const nowMs = typeof now === 'string' ? Date.parse(now) : Date.now();
  if (handOff !== undefined && request.runAt <= nowMs && handOff.tries(request.queue)) {
    const handed = await handOver(ctx, request, values, memo, handOff);
    if (handed !== undefined) return handed;
  }
  let sentAt = memo.now();
  const guard = memo.guard(request, typeof now === 'string' ? nowMs : undefined, sentAt);
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
