import {
  boundedText,
  storableProgress,
  type AckManyItem,
  type ClaimRef,
  type JobProgress,
  nackRunAt,
  nackUncounted,
  type NackOptions,
  storableDuration,
  storableNack,
} from '@ultimat3/jobs';
import type { RedisContext } from './redis-context';
import { NULL_ARG } from './redis-rows';
import type { ScriptArg } from './redis-scripts';

/**
 * `LUA_ACK`'s arguments after the clock: the count, the worker id every item shares ('' when they do not, or share
 * ''), then per item its id, claim and duration (and its worker id when not shared).
 */
function ackArgs(items: readonly AckManyItem[]): ScriptArg[] {
  const worker = items[0]!.workerId;
  const shared = worker !== '' && items.every((i) => i.workerId === worker);
  const argv: ScriptArg[] = [items.length, shared ? worker : ''];
  for (const i of items) {
    argv.push(i.jobId, i.claim, storableDuration(i.durationMs));
    if (!shared) argv.push(i.workerId);
  }
  return argv;
}

/** Settles runs done, each fenced on its own claim, in one script; answers per item whether it landed. */
export async function ackRows(
  ctx: RedisContext,
  items: readonly AckManyItem[],
): Promise<boolean[]> {
  if (items.length === 0) return [];
  const reply = await ctx.run('ack', ackArgs(items));
  return Array.isArray(reply) ? reply.map((landed) => landed === 1) : [];
}

/** Hands a run back as its kind says (see `LUA_NACK`), fenced on its claim. */
export async function nackRow(
  ctx: RedisContext,
  jobId: string,
  given: NackOptions,
): Promise<boolean> {
  const options = storableNack(given);
  const runAt = nackRunAt(options);
  const reply = await ctx.run('nack', [
    jobId,
    options.workerId,
    options.claim,
    options.kind,
    runAt === undefined ? '' : String(runAt),
    nackUncounted(options) ? '1' : '0',
    options.error === null ? NULL_ARG : boundedText(options.error),
    storableDuration(options.durationMs),
  ]);
  return reply === 1;
}

/** Renews the lease to `visibilityTimeoutMs` from the server's now, fenced on the claim. */
export async function heartbeatRow(
  ctx: RedisContext,
  jobId: string,
  claim: ClaimRef,
  visibilityTimeoutMs: number,
): Promise<boolean> {
  const reply = await ctx.run('heartbeat', [
    jobId,
    claim.workerId,
    claim.claim,
    visibilityTimeoutMs,
  ]);
  return reply === 1;
}

/** Writes a run's progress (checked and sanitised first), fenced on the claim. */
export async function recordProgressRow(
  ctx: RedisContext,
  jobId: string,
  claim: ClaimRef,
  progress: JobProgress,
): Promise<boolean> {
  const stored = storableProgress(progress);
  const reply = await ctx.run('progress', [
    jobId,
    claim.workerId,
    claim.claim,
    JSON.stringify(stored),
  ]);
  return reply === 1;
}
