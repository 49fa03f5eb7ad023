import {
  boundedText,
  storableProgress,
  type AckManyItem,
  type ClaimRef,
  type JobProgress,
  type NackOptions,
} from '@ultimat3/jobs';
import type { RedisContext } from './redis-context';
import { NULL_ARG } from './redis-rows';

/**
 * How a nack moves a run, as a tagged union: what `NackOptions`' four flags and their precedence rule mean, said once.
 * `retry` counts the attempt, `handBack` returns it uncounted; both are due at `runAt` (default now). `park` suspends
 * until `runAt`, `uncounted` when the suspension hands its attempt back. `dead` dead-letters, `fail` fails for good.
 */
export type NackOutcome =
  | { readonly kind: 'retry' | 'handBack'; readonly runAt?: number }
  | { readonly kind: 'park'; readonly runAt?: number; readonly uncounted: boolean }
  | { readonly kind: 'dead' | 'fail'; readonly uncounted: boolean };

/** The {@link NackOutcome} of today's `NackOptions` (deadLetter wins over fail, fail over park, as `nackState` reads). */
export function nackOutcome(options: NackOptions): NackOutcome {
  const uncounted = options.uncounted === true;
  if (options.deadLetter) return { kind: 'dead', uncounted };
  if (options.fail) return { kind: 'fail', uncounted };
  if (options.park) return { kind: 'park', runAt: options.runAt, uncounted };
  return { kind: uncounted ? 'handBack' : 'retry', runAt: options.runAt };
}

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

/** Hands a run back as `outcome` says, fenced on its claim. */
export async function nackRow(
  ctx: RedisContext,
  jobId: string,
  claim: ClaimRef,
  outcome: NackOutcome,
  error: string | null,
  durationMs?: number,
): Promise<boolean> {
  const runAt = 'runAt' in outcome && outcome.runAt !== undefined ? String(outcome.runAt) : '';
  const uncounted = 'uncounted' in outcome && outcome.uncounted ? '1' : '0';
  const reply = await ctx.run('nack', [
    jobId,
    claim.workerId,
    claim.claim,
    outcome.kind,
    runAt,
    uncounted,
    error === null ? NULL_ARG : boundedText(error),
    duration(durationMs),
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
