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

/** An item {@link ackRows} sends: its place in the batch and its id in lower case. */
interface SentAck {
  readonly index: number;
  readonly id: string;
  readonly item: AckManyItem;
}

/**
 * Settles many runs done in ONE statement per worker the batch names (a worker's own batch names one), each fenced on
 * its own claim and worker (see `SQL_ACK`, which checks the worker against the batch's workers: only over one worker
 * is that each item's own). Items that cannot hold a row (not uuids) and repeats of an id already sent answer false
 * without reaching a statement: of the join rows naming one target, UPDATE … FROM uses an unpredictable one, so only
 * the first item of an id that can hold a row is sent, whichever worker it names.
 */
export async function ackRows(ctx: PgContext, items: readonly AckManyItem[]): Promise<boolean[]> {
  const answers = items.map(() => false);
  const seen = new Set<string>();
  const byWorker = new Map<string, SentAck[]>();
  items.forEach((item, index) => {
    if (!canHold(item.jobId, item)) return;
    const id = item.jobId.toLowerCase();
    if (seen.has(id)) return;
    seen.add(id);
    const group = byWorker.get(item.workerId);
    if (group === undefined) byWorker.set(item.workerId, [{ index, id, item }]);
    else group.push({ index, id, item });
  });
  for (const [workerId, sent] of byWorker) {
    const landed = await ackOfOneWorker(ctx, workerId, sent);
    sent.forEach(({ index }, k) => (answers[index] = landed[k] === true));
  }
  return answers;
}

/** Sends {@link ackRows}' items of one worker, checked and each id once: one statement. Answers per item of `sent`. */
async function ackOfOneWorker(
  ctx: PgContext,
  workerId: string,
  sent: readonly SentAck[],
): Promise<boolean[]> {
  if (sent.length === 1) return [await ackOne(ctx, (sent[0] as SentAck).item)];
  /** `SQL_ACK`'s $4, a jsonb object from each id to its claim, written out: both are checked uuids (`canHold`). */
  let fences = '';
  for (const { id, item } of sent)
    fences += `${fences === '' ? '{' : ','}"${id}":"${item.claim.toLowerCase()}"`;
  // the statement answers the ids that did NOT land. The ids go binary (16 bytes each, copied by the server), not as
  // an array literal `pg` would build element by element and the server parse back (see `uuidArray`)
  const { rows } = await ctx.executor.query<{ id: string }>(ctx.sql.ack, [
    ctx.now(),
    uuidArray(sent.map(({ id }) => id)),
    [workerId],
    `${fences}}`,
    sent.map(({ item }) => storableDuration(item.durationMs)),
  ]);
  const missed = new Set(rows.map(({ id }) => id));
  return sent.map(({ id }) => !missed.has(id));
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
