import {
  nackState,
  stripNul,
  type AckManyItem,
  type AckOptions,
  type ClaimRef,
  type JobProgress,
  type JsonValue,
  type NackOptions,
} from '@ultimat3/jobs';
import { iso, isUuid, type PgContext } from './pg-context';
import { jsonText } from './pg-rows';

/** Whether `ref` can hold any row: a claim that is not a uuid never does, so no statement is needed. */
const canHold = (jobId: string, ref: ClaimRef): boolean => isUuid(jobId) && isUuid(ref.claim);

/** Settles a run done, fenced on its claim (see `SQL_ACK`). */
export async function ackRow(ctx: PgContext, jobId: string, options: AckOptions): Promise<boolean> {
  const [landed] = await ackRows(ctx, [{ jobId, ...options }]);
  return landed === true;
}

/**
 * Settles many runs done in ONE statement, each fenced on its own claim (see `SQL_ACK`). Items that cannot hold a row
 * (not uuids) and repeats of an id already in the batch answer false without reaching the statement: of the join
 * rows naming one target, UPDATE … FROM uses an unpredictable one, so only the first item of an id is sent.
 */
export async function ackRows(ctx: PgContext, items: readonly AckManyItem[]): Promise<boolean[]> {
  const answers = items.map(() => false);
  const sent: number[] = [];
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (!canHold(item.jobId, item) || seen.has(item.jobId)) return;
    seen.add(item.jobId);
    sent.push(i);
  });
  if (sent.length === 0) return answers;
  const pick = <T>(field: (item: AckManyItem) => T): T[] =>
    sent.map((i) => field(items[i] as AckManyItem));
  const { rows } = await ctx.executor.query<{ ord: number }>(ctx.sql.ack, [
    ctx.now(),
    pick((item) => item.jobId),
    pick((item) => item.workerId),
    pick((item) => item.claim),
  ]);
  for (const { ord } of rows) {
    const index = sent[ord - 1];
    if (index !== undefined) answers[index] = true;
  }
  return answers;
}

/** Hands a run back in the state `nackState` names, fenced on its claim (see `SQL_NACK`). */
export async function nackRow(
  ctx: PgContext,
  jobId: string,
  options: NackOptions,
): Promise<boolean> {
  if (!canHold(jobId, options)) return false;
  const { rowCount } = await ctx.executor.query(ctx.sql.nack, [
    ctx.now(),
    jobId,
    options.workerId,
    options.claim,
    nackState(options, ctx.nowMs()),
    options.error === null ? null : stripNul(options.error),
    options.runAt === undefined ? null : iso(options.runAt),
    options.uncounted === true,
  ]);
  return rowCount === 1;
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
  if (!canHold(jobId, claim)) return false;
  const stored: JsonValue =
    progress.note === undefined
      ? { done: progress.done, total: progress.total }
      : { done: progress.done, total: progress.total, note: progress.note };
  const { rowCount } = await ctx.executor.query(ctx.sql.progress, [
    ctx.now(),
    jobId,
    claim.workerId,
    claim.claim,
    jsonText(stored),
  ]);
  return rowCount === 1;
}
