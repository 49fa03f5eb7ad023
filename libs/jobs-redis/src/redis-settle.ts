import {
  boundedText,
  storableProgress,
  type AckManyItem,
  type ClaimRef,
  type JobProgress,
  nackRunAt,
  nackUncounted,
  type NackOptions,
} from '@ultimat3/jobs';
import type { RedisContext } from './redis-context';
import { NULL_ARG } from './redis-rows';

const duration = (ms: number | undefined): number => Math.max(0, Math.round(ms ?? 0));

/** Settles runs done, each fenced on its own claim, in one script; answers per item whether it landed. */
export async function ackRows(
  ctx: RedisContext,
  items: readonly AckManyItem[],
): Promise<boolean[]> {
  if (items.length === 0) return [];
  const argv = items.flatMap((i) => [i.jobId, i.workerId, i.claim, duration(i.durationMs)]);
  const reply = await ctx.run('ack', [items.length, ...argv]);
  return Array.isArray(reply) ? reply.map((landed) => landed === 1) : [];
}

/** Hands a run back as its kind says (see `LUA_NACK`), fenced on its claim. */
export async function nackRow(
  ctx: RedisContext,
  jobId: string,
  options: NackOptions,
): Promise<boolean> {
  const runAt = nackRunAt(options);
  const reply = await ctx.run('nack', [
    jobId,
    options.workerId,
    options.claim,
    options.kind,
    runAt === undefined ? '' : String(runAt),
    nackUncounted(options) ? '1' : '0',
    options.error === null ? NULL_ARG : boundedText(options.error),
    duration(options.durationMs),
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
