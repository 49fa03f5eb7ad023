import {
  boundedText,
  nackRunAt,
  nackState,
  nackUncounted,
  type AckManyItem,
  type AckOptions,
  type ClaimRef,
  type JobProgress,
  type NackOptions,
  storableDuration,
  storableNack,
  storableProgress,
} from '@ultimat3/jobs';
import { uuidArray } from './pg-batch-params';
import { iso, isUuid, type PgContext } from './pg-context';
import { PgLowWater } from './pg-low-water';

/** Whether `ref` can hold any row: a claim that is not a uuid never does, so no statement is needed. */
const canHold = (jobId: string, ref: ClaimRef): boolean => isUuid(jobId) && isUuid(ref.claim);

/** Settles a run done, fenced on its claim (see `SQL_ACK`). */
export async function ackRow(ctx: PgContext, jobId: string, options: AckOptions): Promise<boolean> {
  const [landed] = await ackRows(ctx, [{ jobId, ...options }]);
  return landed === true;
}

/**
 * Settles one run done through `SQL_ACK_ONE`, whose generic plan PostgreSQL keeps: `SQL_ACK`'s is estimated for ten
 * ids, so a batch of one was planned afresh on every execution. `item` holds checked uuids (`canHold`).
 */
async function ackOne(ctx: PgContext, item: AckManyItem): Promise<boolean> {
  const { rows } = await ctx.executor.query<{ landed: number }>(ctx.sql.ackOne, [
    ctx.now(),
    item.jobId,
    item.workerId,
    item.claim,
    storableDuration(item.durationMs),
  ]);
  return rows[0]?.landed === 1;
}

/**
 * Settles many runs done in ONE statement per worker the batch names (a worker's own batch names one), each fenced on
 * its own claim and worker (see `SQL_ACK`, which checks the worker against the batch's workers: only over one worker
 * is that each item's own). Items that cannot hold a row (not uuids) and repeats of an id already in the batch answer
 * false without reaching the statement: of the join rows naming one target, UPDATE … FROM uses an unpredictable one,
 * so only the first item of an id is sent.
 */
export async function ackRows(ctx: PgContext, items: readonly AckManyItem[]): Promise<boolean[]> {
  const first = items[0]?.workerId;
  if (items.every((item) => item.workerId === first)) return ackRowsOfOneWorker(ctx, items);
  const answers = items.map(() => false);
  const seen = new Set<string>();
  const byWorker = new Map<string, number[]>();
  items.forEach((item, i) => {
    const id = typeof item.jobId === 'string' ? item.jobId.toLowerCase() : item.jobId;
    if (seen.has(id)) return; // a repeat of an id answers false, whichever worker it names
    seen.add(id);
    const indexes = byWorker.get(item.workerId) ?? [];
    indexes.push(i);
    byWorker.set(item.workerId, indexes);
  });
  for (const indexes of byWorker.values()) {
    const landed = await ackRowsOfOneWorker(
      ctx,
      indexes.map((i) => items[i] as AckManyItem),
    );
    indexes.forEach((i, k) => (answers[i] = landed[k] ?? false));
  }
  return answers;
}

/** {@link ackRows} over items that all name one worker: one statement. */
async function ackRowsOfOneWorker(
  ctx: PgContext,
  items: readonly AckManyItem[],
): Promise<boolean[]> {
  const answers = items.map(() => false);
  /** The index of the item sent for each (lower-case) id. */
  const sent = new Map<string, number>();
  const ids: string[] = [];
  const workers: string[] = [];
  /** `SQL_ACK`'s $4, a jsonb object from each id to its claim, written out: both are checked uuids (`canHold`). */
  let fences = '';
  const durations: number[] = [];
  items.forEach((item, i) => {
    if (!canHold(item.jobId, item)) return;
    const id = item.jobId.toLowerCase();
    if (sent.has(id)) return;
    sent.set(id, i);
    ids.push(id);
    if (!workers.includes(item.workerId)) workers.push(item.workerId);
    fences += `${fences === '' ? '{' : ','}"${id}":"${item.claim.toLowerCase()}"`;
    durations.push(storableDuration(item.durationMs));
  });
  if (ids.length === 0) return answers;
  if (ids.length === 1) {
    const index = sent.values().next().value as number;
    answers[index] = await ackOne(ctx, items[index] as AckManyItem);
    return answers;
  }
  // the statement answers the ids that did NOT land. The ids go binary (16 bytes each, copied by the server), not as
  // an array literal `pg` would build element by element and the server parse back (see `uuidArray`)
  const { rows } = await ctx.executor.query<{ id: string }>(ctx.sql.ack, [
    ctx.now(),
    uuidArray(ids),
    workers,
    `${fences}}`,
    durations,
  ]);
  for (const index of sent.values()) answers[index] = true;
  for (const { id } of rows) {
    const index = sent.get(id);
    if (index !== undefined) answers[index] = false;
  }
  return answers;
}

/**
 * Hands a run back as its kind says, fenced on its claim (see `SQL_NACK`): the target state from `nackState`, the
 * attempt handed back when `nackUncounted`.
 */
export async function nackRow(ctx: PgContext, jobId: string, given: NackOptions): Promise<boolean> {
  const options = storableNack(given);
  if (!canHold(jobId, options)) return false;
  const runAt = nackRunAt(options);
  const { rows } = await ctx.executor.query(ctx.sql.nack, [
    ctx.now(),
    jobId,
    options.workerId,
    options.claim,
    nackState(options, ctx.nowMs()),
    options.error === null ? null : boundedText(options.error),
    runAt === undefined ? null : iso(runAt),
    nackUncounted(options),
    storableDuration(options.durationMs),
  ]);
  if (rows.length !== 1) return false;
  // a row put back in the past is below no bound the claims keep unless they are told (see `PgLowWater`)
  if (runAt !== undefined && PgLowWater.mayHide(runAt, ctx.nowMs())) {
    ctx.lowWater.lowerAll(runAt, ctx.nowMs());
  }
  return true;
}

/** Renews the lease to `visibilityTimeoutMs` from now, fenced on the claim (see `SQL_HEARTBEAT`). */
export async function heartbeatRow(
  ctx: PgContext,
  jobId: string,
  claim: ClaimRef,
  visibilityTimeoutMs: number,
): Promise<boolean> {
  if (!canHold(jobId, claim)) return false;
  const { rowCount } = await ctx.executor.query(ctx.sql.heartbeat, [
    ctx.now(),
    jobId,
    claim.workerId,
    claim.claim,
    visibilityTimeoutMs,
  ]);
  return rowCount === 1;
}

/** Stores a run's progress, fenced on the claim (see `SQL_PROGRESS`). */
export async function recordProgressRow(
  ctx: PgContext,
  jobId: string,
  claim: ClaimRef,
  progress: JobProgress,
): Promise<boolean> {
  const stored = storableProgress(progress);
  if (!canHold(jobId, claim)) return false;
  const { rowCount } = await ctx.executor.query(ctx.sql.progress, [
    ctx.now(),
    jobId,
    claim.workerId,
    claim.claim,
    JSON.stringify(stored),
  ]);
  return rowCount === 1;
}
