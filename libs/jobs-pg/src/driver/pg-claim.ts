import {
  assertCarriedBeat,
  boundInFlight,
  ClaimQueuesEmptyError,
  type ClaimAndRescueResult,
  type ClaimedJob,
  type ClaimOptions,
  type JobRow,
  type RescueOptions,
  type RescueRequest,
  type RescueResult,
} from '@ultimat3/jobs';
import { iso, isUuid, type PgContext } from './pg-context';
import { toClaimedJob, toJobRow, type JobRecord } from './pg-rows';

interface ClaimRecord extends JobRecord {
  /** `low-water`: only `queue` and `run_at` (the queue's low water, epoch ms) are set. */
  readonly arm: 'claimed' | 'buried' | 'low-water';
}

/**
 * A claim without rescue (`JobDriver.claim`): through `SQL_CLAIM_WAITING` when it answers the claim exactly (a busy
 * worker's claims) — through `SQL_CLAIM_WOKEN` when besides the claim has one slot (a woken worker's claims) — else
 * `SQL_CLAIM` with its rescue arms off (see {@link claimPass}).
 */
export async function claimRows(
  ctx: PgContext,
  options: ClaimOptions,
): Promise<readonly ClaimedJob[]> {
  const lows = lowsOf(ctx, options);
  if (waitingOnly(options, lows)) {
    return options.slots.length === 1
      ? claimWoken(ctx, options, lows[0] as number)
      : claimWaiting(ctx, options, lows);
  }
  return (await claimPass(ctx, options, lows, undefined)).claimed;
}

/** A claim that rescues first, in the same statement (`JobDriver.claimRescuing`; see {@link claimPass}). */
export function claimRescuingRows(
  ctx: PgContext,
  options: ClaimOptions,
  rescue: RescueRequest,
): Promise<ClaimAndRescueResult> {
  return claimPass(ctx, options, lowsOf(ctx, options), rescue);
}

/** Per slot, the low water its waiting scan starts at, or null to compute it afresh (the claim must have a slot). */
function lowsOf(ctx: PgContext, options: ClaimOptions): (number | null)[] {
  const { slots } = options;
  if (slots.length === 0) throw new ClaimQueuesEmptyError();
  const askedAt = ctx.nowMs();
  const lows = new Array<number | null>(slots.length);
  for (let i = 0; i < slots.length; i++) {
    lows[i] = ctx.lowWater.hint((slots[i] as ClaimOptions['slots'][number]).queue, askedAt);
  }
  return lows;
}

/**
 * One claim pass through `SQL_CLAIM`: ONE statement claims every slot's due rows and, when `rescue` is given, re-takes
 * the lapsed leases of served names and buries the lapsed final attempts in the same statement (without it the rescue
 * arms sit under a one-time filter and the lease index is not opened). The buried rows are answered apart from the
 * claimed ones. Each slot's waiting scan starts at the queue's low water (`PgLowWater`), or computes it afresh when it
 * is unknown or older than `LOW_WATER_REFRESH_MS` (`lows` null), and the statement answers the fresh one.
 */
async function claimPass(
  ctx: PgContext,
  options: ClaimOptions,
  lows: readonly (number | null)[],
  rescue: RescueRequest | undefined,
): Promise<ClaimAndRescueResult> {
  const askedAt = ctx.nowMs();
  const { rows } = await ctx.executor.query<ClaimRecord>(ctx.sql.claim, [
    ctx.now(),
    options.workerId,
    options.slots.map((slot) => slot.queue),
    options.slots.map((slot) => Math.max(0, Math.floor(slot.limit))),
    options.visibilityTimeoutMs,
    [...(rescue?.dropExhausted ?? [])],
    [...(options.excludeTenants ?? [])],
    options.slots.map((slot) => Math.max(0, Math.floor(slot.ahead ?? 0))),
    lows,
    lows.map((low) => low === null),
    rescue !== undefined,
    ...servedPairs(options.slots),
    ...beatParams(options),
    asyncCommit(ctx),
  ]);
  const claimed: ClaimedJob[] = [];
  const buried: JobRow[] = [];
  for (const record of rows) {
    if (record.arm === 'buried') buried.push(toJobRow(record));
    else if (record.arm === 'low-water') {
      ctx.lowWater.learn(record.queue, Number(record.run_at), askedAt);
    } else claimed.push(toClaimedJob(record));
  }
  return { claimed, rescued: buried.length === 0 ? NOTHING_RESCUED : { buried } };
}

/** The answer of a pass that buried nothing (shared: it is never mutated). */
const NOTHING_RESCUED: RescueResult = Object.freeze({ buried: Object.freeze([]) });

/**
 * Whether `SQL_CLAIM_WAITING` answers a claim without rescue exactly: no beat to carry, every
 * queue's low water known (`lows`: none to compute), each queue once with one served name. A busy worker's claims are
 * all of this shape but the one a second that rescues or refreshes the low water.
 */
function waitingOnly(options: ClaimOptions, lows: readonly (number | null)[]): boolean {
  if (options.presence !== undefined) return false;
  const queues = new Set<string>();
  const { slots } = options;
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i] as ClaimOptions['slots'][number];
    if (lows[i] === null || slot.names?.length !== 1 || queues.has(slot.queue)) return false;
    queues.add(slot.queue);
  }
  return true;
}

/** One claim of waiting rows through `SQL_CLAIM_WAITING` (see {@link waitingOnly}), each scan from its low water. */
async function claimWaiting(
  ctx: PgContext,
  options: ClaimOptions,
  lows: readonly (number | null)[],
): Promise<ClaimedJob[]> {
  const { slots } = options;
  const { rows } = await ctx.executor.query<JobRecord>(ctx.sql.claimWaiting, [
    ctx.now(),
    options.workerId,
    slots.map((slot) => slot.queue),
    slots.map((slot) => slot.names?.[0] ?? null),
    slots.map((slot) => Math.max(0, Math.floor(slot.limit))),
    slots.map((slot) => Math.max(0, Math.floor(slot.ahead ?? 0))),
    lows,
    [...(options.excludeTenants ?? [])],
    options.visibilityTimeoutMs,
    asyncCommit(ctx),
  ]);
  return claimedOf(rows);
}

/** The claimed jobs of a claim's answered rows, in their order (an indexed loop: a claim answers up to hundreds). */
function claimedOf(rows: readonly JobRecord[]): ClaimedJob[] {
  const claimed: ClaimedJob[] = new Array<ClaimedJob>(rows.length);
  for (let i = 0; i < rows.length; i++) claimed[i] = toClaimedJob(rows[i] as JobRecord);
  return claimed;
}

/** One claim of one slot's waiting rows through `SQL_CLAIM_WOKEN` (see {@link waitingOnly}), from the low water. */
async function claimWoken(
  ctx: PgContext,
  options: ClaimOptions,
  low: number,
): Promise<ClaimedJob[]> {
  const slot = options.slots[0] as ClaimOptions['slots'][number];
  const { rows } = await ctx.executor.query<JobRecord>(ctx.sql.claimWoken, [
    ctx.now(),
    options.workerId,
    slot.queue,
    (slot.names as readonly string[])[0],
    Math.max(0, Math.floor(slot.limit)),
    Math.max(0, Math.floor(slot.ahead ?? 0)),
    low,
    [...(options.excludeTenants ?? [])],
    options.visibilityTimeoutMs,
    asyncCommit(ctx),
  ]);
  return claimedOf(rows);
}

/**
 * Whether a claim's commit may skip its WAL flush (`SQL_CLAIM`'s $21, `SQL_CLAIM_WAITING`'s and `SQL_CLAIM_WOKEN`'s
 * $10): only over a shared pool, where the claim is a transaction of its own. Over an executor bound to one connection
 * or to a caller's transaction the claim may share the caller's transaction, whose commit must stay as durable as the
 * caller asked. Why a claim may commit without waiting: see docs/design.md, "The claim".
 */
function asyncCommit(ctx: PgContext): boolean {
  return ctx.executor.shared === true;
}

/** A standalone rescue (`JobDriver.rescue`) through `SQL_RESCUE`: answers the rows it buried. */
export async function rescueRows(ctx: PgContext, options: RescueOptions): Promise<RescueResult> {
  const [queues, names] = servedPairs(options.slots);
  const { rows } = await ctx.executor.query<JobRecord>(ctx.sql.rescue, [
    ctx.now(),
    options.visibilityTimeoutMs,
    [...(options.dropExhausted ?? [])],
    queues,
    names,
    options.slots.map((slot) => slot.queue),
  ]);
  return { buried: rows.map(toJobRow) };
}

/**
 * `SQL_CLAIM`'s $12 and $13: the (queue, name) pairs the slots serve, a null name for a slot that takes every name
 * (`ClaimSlot.names` absent). A slot naming no name adds no pair: nothing of its queue is taken.
 */
function servedPairs(slots: RescueOptions['slots']): [string[], (string | null)[]] {
  const queues: string[] = [];
  const names: (string | null)[] = [];
  for (const slot of slots) {
    for (const name of slot.names ?? [null]) {
      queues.push(slot.queue);
      names.push(name);
    }
  }
  return [queues, names];
}

/** `SQL_CLAIM`'s $14–$20: the registry beat the claim carries, or nulls for none (see `pgWorkerRegistry`). */
function beatParams(options: ClaimOptions): unknown[] {
  const { presence } = options;
  if (presence === undefined) return [null, null, null, null, null, null, null];
  assertCarriedBeat(options.workerId, presence);
  const { beat } = presence;
  return [
    beat.host,
    beat.pid,
    Object.keys(beat.slots).sort(),
    JSON.stringify(beat.slots),
    boundInFlight(beat.inFlight.filter(isUuid)),
    iso(beat.startedAt),
    presence.visibilityTimeoutMs,
  ];
}
