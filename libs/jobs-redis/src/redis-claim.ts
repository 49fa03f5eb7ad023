import { randomUUID } from 'node:crypto';
import {
  ClaimQueuesEmptyError,
  type ClaimAndRescueResult,
  type ClaimedJob,
  type ClaimOptions,
  type RescueOptions,
  type RescueRequest,
  type RescueResult,
  type RescueSlot,
} from '@ultimat3/jobs';
import type { RedisContext } from './redis-context';
import { packedClaimedRow, type ClaimWritten, type ReadClaimedRow } from './redis-claim-reply';
import { rowFrom, toJobRows } from './redis-rows';
import { nackRow } from './redis-settle';
import type { ScriptArg, ScriptReply } from './redis-scripts';
import type { RedisWake } from './redis-wake';
import type { RescueCursors } from './redis-rescue-cursors';

/** The most rows one slot hands out in one claim, whatever it asks (an unbounded `limit` included). */
const MAX_SLOT_ROWS = 1_000_000;

/**
 * A slot's whole-number limit and ahead, as the memory driver reads them: a fraction or a negative is taken as its
 * floor, at least 0; NaN takes nothing; Infinity takes every due row (up to {@link MAX_SLOT_ROWS}).
 */
const whole = (n: number | undefined): number =>
  n === undefined || Number.isNaN(n) ? 0 : Math.min(MAX_SLOT_ROWS, Math.max(0, Math.floor(n)));

/** The served-names arguments of a slot or a queue: -1 for every name, else the count and the names. */
const namesArgs = (names: readonly string[] | undefined): ScriptArg[] =>
  names === undefined ? [-1] : [names.length, ...names];

/**
 * Per queue, the names its slots serve; `undefined` when a slot of it takes every name. A queue named by two slots
 * serves the names of both.
 */
export function servedNames(
  slots: readonly RescueSlot[],
): Map<string, readonly string[] | undefined> {
  const served = new Map<string, readonly string[] | undefined>();
  for (const slot of slots) {
    const had = served.has(slot.queue) ? served.get(slot.queue) : [];
    served.set(
      slot.queue,
      had === undefined || slot.names === undefined
        ? undefined
        : [...new Set([...had, ...slot.names])],
    );
  }
  return served;
}

/**
 * Rescues the lapsed leases of the slots' queues ({@link LUA_RESCUE}): buries the final attempts, returns the others
 * to waiting. Answers the buried rows. It is `JobDriver.rescue` on its own, and the rescue half of a rescuing claim.
 * Each queue's page of lapsed leases starts where `cursors` says, which it then moves on (see {@link RescueCursors}).
 */
export async function rescueLapsed(
  ctx: RedisContext,
  options: RescueOptions,
  cursors: RescueCursors,
): Promise<RescueResult['buried']> {
  const served = servedNames(options.slots);
  const drop = [...(options.dropExhausted ?? [])];
  const argv: ScriptArg[] = [options.visibilityTimeoutMs, served.size];
  for (const [queue, names] of served) {
    argv.push(queue, cursors.offset(queue, names), ...namesArgs(names));
  }
  argv.push(drop.length, ...drop);
  const reply = await ctx.run('rescue', argv);
  const [buried, pages] = Array.isArray(reply) ? reply : [];
  const counts = Array.isArray(pages) ? pages.map(Number) : [];
  let at = 0;
  for (const [queue, names] of served) {
    cursors.advance(queue, names, counts[at] ?? 0, counts[at + 1] ?? 0);
    at += 2;
  }
  return buried === undefined ? [] : toJobRows(buried);
}

/** What {@link LUA_CLAIM} answers: the claimed rows, the server's now, and the queues it found idle (→ due ms). */
export interface ClaimReply {
  readonly rows: ClaimedJob[];
  /** Rows the script claimed whose stored input is not JSON text: buried, never handed out. */
  readonly unreadable: ClaimedJob[];
  readonly now: number;
  readonly idle: Map<string, number>;
  /**
   * The first failure to read a claimed row whole ({@link wholeRow}: Redis out of reach mid-way), or undefined. Such a
   * row is left out: it stays leased, so its lease lapses and the rescue takes it again; the rows read are answered.
   */
  readonly failure: { readonly error: unknown } | undefined;
}

/**
 * A claimed row read whole from its hash: a row {@link LUA_CLAIM} could not pack (a NUL in a stored value, written
 * around the driver). It was written by that claim, so it reads as claimed.
 */
async function wholeRow(ctx: RedisContext, id: string): Promise<ReadClaimedRow | undefined> {
  const fields = await ctx.client.hgetall(`${ctx.prefix}j:${id}`);
  if (Object.keys(fields).length === 0) return undefined;
  const read = rowFrom((key) => (Object.hasOwn(fields, key) ? fields[key] : undefined));
  return { row: read.row as ClaimedJob, unreadable: read.unreadable };
}

async function claimReplyOf(
  ctx: RedisContext,
  reply: ScriptReply,
  workerId: string,
  base: string,
): Promise<ClaimReply> {
  const [rows, meta] = Array.isArray(reply) ? reply : [];
  const flat = Array.isArray(meta) ? meta.map(String) : [];
  const idle = new Map<string, number>();
  for (let i = 2; i + 1 < flat.length; i += 2) idle.set(flat[i]!, Number(flat[i + 1]));
  const now = Number(flat[0] ?? 0);
  const written: ClaimWritten = { workerId, base, now, leaseExpiresAt: Number(flat[1] ?? 0) };
  const claimed: ClaimedJob[] = [];
  const unreadable: ClaimedJob[] = [];
  let failure: { readonly error: unknown } | undefined;
  const list = Array.isArray(rows) ? rows : [];
  for (let i = 0; i < list.length; i++) {
    const entry = list[i];
    let read = typeof entry === 'string' ? packedClaimedRow(entry, i + 1, written) : undefined;
    if (read !== undefined && 'whole' in read) {
      try {
        read = await wholeRow(ctx, read.whole);
      } catch (error) {
        // the rows already read, and those after, are still answered: a throw here would strand them all running
        failure ??= { error };
        continue;
      }
    }
    if (read !== undefined) (read.unreadable ? unreadable : claimed).push(read.row);
  }
  return { rows: claimed, unreadable, now, idle, failure };
}

/**
 * Buries, fenced on the claim just made, rows whose stored input is not JSON text (written around the driver): no run
 * could read it, and handing it out would fail the whole claim. `dead` (kept for an operator to inspect and remove),
 * with `X_JOB_INPUT_INVALID` as its last error. Each row on its own: a burial that fails (Redis out of reach, a script
 * error) leaves its row leased — its lease lapses, the rescue takes it again and a later claim buries it — and the
 * next is still tried. Answers the first failure, or undefined when every burial landed.
 */
async function buryUnreadable(
  ctx: RedisContext,
  rows: readonly ClaimedJob[],
): Promise<{ readonly error: unknown } | undefined> {
  let failure: { readonly error: unknown } | undefined;
  for (const row of rows) {
    try {
      await nackRow(ctx, row.id, {
        workerId: row.workerId,
        claim: row.claim,
        kind: 'dead',
        error: `X_JOB_INPUT_INVALID: the stored input of job ${row.name} is not JSON text`,
      });
    } catch (error) {
      failure ??= { error };
    }
  }
  return failure;
}

/**
 * The claim's own failures after its script ran (a claimed row not read whole, an unreadable one not buried): the
 * first, or undefined. The rows it took and read are answered whatever these were; a claim that has none to answer
 * fails with it instead (the worker logs `jobs.claim.failed`), so a failure is never dropped for an empty answer.
 */
async function afterClaim(
  ctx: RedisContext,
  reply: ClaimReply,
): Promise<{ readonly error: unknown } | undefined> {
  const burial =
    reply.unreadable.length > 0 ? await buryUnreadable(ctx, reply.unreadable) : undefined;
  return reply.failure ?? burial;
}

/** Claims waiting rows for the slots ({@link LUA_CLAIM}); rescue is not its business. */
export async function claimWaiting(
  ctx: RedisContext,
  options: ClaimOptions,
): Promise<ClaimedJob[]> {
  const reply = await claimWaitingReply(ctx, options, servedNames(options.slots));
  const failure = await afterClaim(ctx, reply);
  if (failure !== undefined && reply.rows.length === 0) throw failure.error;
  return reply.rows;
}

async function claimWaitingReply(
  ctx: RedisContext,
  options: ClaimOptions,
  served: ReadonlyMap<string, readonly string[] | undefined>,
): Promise<ClaimReply> {
  const excluded = options.excludeTenants ?? [];
  const base = randomUUID();
  const argv: ScriptArg[] = [
    options.workerId,
    options.visibilityTimeoutMs,
    base,
    excluded.length,
    ...excluded,
    options.slots.length,
  ];
  for (const slot of options.slots) {
    // a slot serves the union of its queue's slots' names, as on every driver
    argv.push(
      slot.queue,
      whole(slot.limit),
      whole(slot.ahead),
      ...namesArgs(served.get(slot.queue)),
    );
  }
  return claimReplyOf(ctx, await ctx.run('claim', argv), options.workerId, base);
}

/**
 * One claim pass, rescuing first when `rescue` is given (`JobDriver.claimRescuing`): the rescue and the claim scripts
 * sent together (one round trip), run by the server in that order, so the claim sees what the rescue freed; the
 * rescue's burials are answered apart from the claimed rows. The rescue is its own script, which `JobDriver.rescue`
 * sends alone ({@link rescueLapsed}). Without `rescue` (`JobDriver.claim`) only the claim script is sent.
 *
 * With a live `wake`, a claim of queues the last claim found idle, with nothing announced since and nothing due by
 * time yet, is answered empty without a round trip (see {@link RedisWake}): an idle worker's polls cost nothing.
 */
export async function claimRows(
  ctx: RedisContext,
  options: ClaimOptions,
  rescue: { readonly request: RescueRequest; readonly cursors: RescueCursors } | undefined,
  wake?: RedisWake,
): Promise<ClaimAndRescueResult> {
  if (options.slots.length === 0) throw new ClaimQueuesEmptyError();
  const served = servedNames(options.slots);
  if (wake?.skips(options, served) === true) return { claimed: [], rescued: NOTHING_RESCUED };
  const mark = wake?.mark();
  // both scripts leave in one write and run in that order on the one connection: the claim sees what the rescue freed
  const rescuing =
    rescue === undefined
      ? undefined
      : rescueLapsed(
          ctx,
          {
            slots: options.slots,
            visibilityTimeoutMs: options.visibilityTimeoutMs,
            ...rescue.request,
          },
          rescue.cursors,
        );
  const claiming = claimWaitingReply(ctx, options, served);
  const [rescued, claimed] = await Promise.allSettled([rescuing, claiming]);
  if (claimed.status === 'rejected') throw claimed.reason;
  const reply = claimed.value;
  const failure = await afterClaim(ctx, reply);
  let buried: RescueResult['buried'] = [];
  if (rescued.status === 'rejected') {
    // rows the claim took are returned, never dropped; with none, the failure is the caller's (its next claim rescues)
    if (reply.rows.length === 0) throw rescued.reason;
  } else if (rescued.value !== undefined) buried = rescued.value;
  // likewise a row not read whole or not buried: with rows to answer it stays leased for the rescue to take again
  if (failure !== undefined && reply.rows.length === 0 && buried.length === 0) throw failure.error;
  if (wake && mark) wake.settle(mark, options, served, reply.now, reply.idle);
  return { claimed: reply.rows, rescued: buried.length === 0 ? NOTHING_RESCUED : { buried } };
}

/** The answer of a pass that buried nothing (shared: it is never mutated). */
const NOTHING_RESCUED: RescueResult = Object.freeze({ buried: Object.freeze([]) });
