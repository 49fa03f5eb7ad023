import {
  inputJsonOf,
  InvariantError,
  JobDuplicateError,
  type EnqueueRequest,
  type EnqueueResult,
} from '@ultimat3/jobs';
import { batchParams } from './pg-batch-params';
import { iso, type PgContext } from './pg-context';
import { insertOne, isUniqueViolation } from './pg-enqueue-insert';
import { singleEnqueueParams } from './pg-enqueue-params';
import { HandOffMemo } from './pg-enqueue-hand-off-memo';
import { WakeMemo } from './pg-enqueue-wake-memo';

/** How an enqueue statement answered one request; null: it met a row committed after its snapshot. */
type Outcome = 'created' | 'id' | 'key' | null;

interface EnqueueRecord {
  readonly id: string | null;
  readonly run_id: string | null;
  readonly outcome: Outcome;
  readonly holder_state: string | null;
}

/**
 * How many times a request that met a concurrently committed row is re-run. Each run sees every row committed before
 * it, so a second one settles any single race; the bound only stops a pathological storm from spinning forever.
 */
const RACE_RETRIES = 10;

/**
 * The refusal of a strict request whose key the live row `holder` holds: its meta names the holder's id and run id, as
 * the memory and Redis drivers' do.
 */
function duplicate(request: EnqueueRequest, holder: EnqueueRecord): Error {
  const tenant = request.tenantId ? ` for tenant "${request.tenantId}"` : '';
  const { id, run_id: runId, holder_state: state } = holder;
  return new JobDuplicateError(
    `Job "${request.name}" already has a live run (job ${id ?? 'in this batch'}, ${state ?? 'ready'}) under idempotency key "${request.idempotencyKey}"${tenant}.`,
    "Wait for that run to finish, or enqueue with onConflict: 'dedupe' to receive its ids.",
    { job: request.name, id, runId, state },
  );
}

function resultOf(request: EnqueueRequest, record: EnqueueRecord): EnqueueResult {
  if (record.id === null || record.run_id === null) {
    throw new InvariantError(`jobs-pg: enqueue of job ${request.id} answered no ids.`);
  }
  return { id: record.id, runId: record.run_id, deduped: record.outcome !== 'created' };
}

/**
 * Inserts one row, or answers the row that holds its id or live key. The insert alone goes first (`insertOne`:
 * `SQL_ENQUEUE_INSERT`, or `SQL_ENQUEUE_QUIET` where the memory's {@link WakeMemo} knows the wake is settled — a
 * created job pays for one small statement); when it met a stored row, `SQL_ENQUEUE` judges the request and answers
 * which row it met. With `memory`, an insert that met a stored row sends the next {@link CAUTIOUS_SINGLES} enqueues
 * straight to `SQL_ENQUEUE`, so a caller that mostly dedupes pays one statement a call, not two.
 */
export async function enqueueOne(
  ctx: PgContext,
  request: EnqueueRequest,
  memory?: BatchMemory,
): Promise<EnqueueResult> {
  const values = singleEnqueueParams(request, ctx.now());
  if (memory !== undefined && memory.singles > 0) {
    memory.singles--;
  } else {
    if (await insertOne(ctx, request, values, memory?.wake, memory?.handOff)) {
      return { id: request.id, runId: request.runId, deduped: false };
    }
    if (memory !== undefined) memory.singles = CAUTIOUS_SINGLES;
  }
  for (let run = 0; run <= RACE_RETRIES; run++) {
    const { rows } = await ctx.executor.query<EnqueueRecord>(ctx.sql.enqueue, values);
    const record = rows[0];
    if (!record) continue; // a concurrent enqueue committed the id or key after this snapshot
    if (record.outcome === 'key' && request.onConflict === 'error') {
      throw duplicate(request, record);
    }
    return resultOf(request, record);
  }
  throw new InvariantError(`jobs-pg: enqueue of job ${request.id} kept meeting concurrent writes.`);
}

/** The per-column arrays the batch statements take, $2 … $14 (and `SQL_SCHEDULER_FIRE` after its own four). */
export function columnsOf(requests: readonly EnqueueRequest[]): unknown[][] {
  const column = <T>(pick: (r: EnqueueRequest) => T): T[] => requests.map(pick);
  return [
    column((r) => r.id),
    column((r) => r.runId),
    column((r) => r.name),
    column((r) => r.queue),
    column((r) => inputJsonOf(r)),
    column((r) => r.idempotencyKey),
    column((r) => r.tenantId),
    column((r) => r.enqueuedBy),
    column((r) => iso(r.runAt)),
    column((r) => r.maxAttempts),
    column((r) => r.priority),
    column((r) => r.concurrencyKey),
    column((r) => r.traceparent),
  ];
}

/** The `cross_tenant_reason` column of a batch: the last array `SQL_ENQUEUE_MANY` takes. */
const crossTenantReasons = (requests: readonly EnqueueRequest[]): (string | null)[] =>
  requests.map((r) => r.crossTenantReason ?? null);

/** The live key a request names: its name, tenant ('' and null alike) and idempotency key. */
const liveKeyOf = (r: EnqueueRequest): string =>
  `${r.name}\u0000${r.tenantId ?? ''}\u0000${r.idempotencyKey}`;

/**
 * Whether ids ascend strictly through a batch, so that none comes twice: a batch the common path built (its ids minted
 * in ascending order, `uuidv7Ascending`) is answered by one comparison a row instead of a set of its ids.
 */
function idsAscend(requests: readonly EnqueueRequest[]): boolean {
  for (let i = 1; i < requests.length; i++) {
    if ((requests[i - 1] as EnqueueRequest).id >= (requests[i] as EnqueueRequest).id) return false;
  }
  return true;
}

/** Whether a batch names an id twice. Ids are lower case: the value contract refuses any other, before any statement. */
function idTwice(requests: readonly EnqueueRequest[]): boolean {
  if (idsAscend(requests)) return false;
  const ids = new Set<string>();
  for (const r of requests) {
    if (ids.has(r.id)) return true;
    ids.add(r.id);
  }
  return false;
}

/**
 * Whether a batch names an id, or a live key, twice: its later requests answer its earlier ones. The live keys are
 * composed only when an idempotency key comes twice (maybe under another name or tenant): a bulk batch seldom has one.
 */
function repeats(requests: readonly EnqueueRequest[]): boolean {
  if (idTwice(requests)) return true;
  const keys = new Set<string>();
  let keyTwice = false;
  for (const r of requests) {
    if (keys.has(r.idempotencyKey)) keyTwice = true;
    else keys.add(r.idempotencyKey);
  }
  return keyTwice && new Set(requests.map(liveKeyOf)).size < requests.length;
}

/** Whether a batch may take the fast path: no strict request, and no id or live key named twice in it. */
const isFresh = (requests: readonly EnqueueRequest[]): boolean =>
  !requests.some((r) => r.onConflict === 'error') && !repeats(requests);

/**
 * The optimistic path (see `SQL_ENQUEUE_BATCH`): every request inserted by one plain insert and answered `created`,
 * or undefined when a row held one of the batch's ids or live keys — the statement then wrote nothing, and the batch
 * is judged the conflict-tolerant way. Taken only over a shared executor, whose failed statement ends a transaction
 * of its own (never the caller's), and for batches repeating nothing inside themselves (they would always fail).
 */
async function enqueueOptimistic(
  ctx: PgContext,
  requests: readonly EnqueueRequest[],
): Promise<EnqueueResult[] | undefined> {
  let inserted: number | undefined;
  try {
    const { rows } = await ctx.executor.query<{ inserted: number }>(ctx.sql.enqueueBatch, [
      ctx.now(),
      ...batchParams(requests),
    ]);
    inserted = rows[0]?.inserted;
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
  if (inserted !== requests.length) {
    throw new InvariantError(`jobs-pg: enqueueMany inserted ${inserted} of ${requests.length}.`);
  }
  return requests.map((r) => ({ id: r.id, runId: r.runId, deduped: false }));
}

/**
 * The fast path (see `SQL_ENQUEUE_FRESH`): inserts every request that collides with nothing, answering those; a
 * request answered null met a stored row and goes through `SQL_ENQUEUE_MANY`.
 */
async function enqueueFresh(
  ctx: PgContext,
  requests: readonly EnqueueRequest[],
): Promise<(EnqueueResult | null)[]> {
  const { rows } = await ctx.executor.query<{ id: string }>(ctx.sql.enqueueFresh, [
    ctx.now(),
    ...batchParams(requests),
  ]);
  const inserted = new Set(rows.map((row) => row.id.toLowerCase()));
  return requests.map((r) =>
    inserted.has(r.id.toLowerCase()) ? { id: r.id, runId: r.runId, deduped: false } : null,
  );
}

/** One statement's pass over a batch: a result per request, or null where it must be re-run. */
async function enqueuePass(
  ctx: PgContext,
  requests: readonly EnqueueRequest[],
): Promise<(EnqueueResult | null)[]> {
  const { rows } = await ctx.executor.query<EnqueueRecord>(ctx.sql.enqueueMany, [
    ctx.now(),
    ...columnsOf(requests),
    requests.map((r) => r.onConflict === 'error'),
    crossTenantReasons(requests),
  ]);
  if (rows.length !== requests.length) {
    throw new InvariantError(`jobs-pg: enqueueMany answered ${rows.length} of ${requests.length}.`);
  }
  // a strict request that met a live key refused the whole batch: nothing was inserted
  rows.forEach((record, i) => {
    const request = requests[i];
    if (request?.onConflict === 'error' && record.outcome === 'key') {
      throw duplicate(request, record);
    }
  });
  return rows.map((record, i) =>
    record.outcome === null ? null : resultOf(requests[i] as EnqueueRequest, record),
  );
}

/**
 * How many batches after one whose optimistic insert met a stored row skip the optimistic path: a workload that
 * dedupes (a relay re-publishing, an app enqueuing keys it enqueued before) would otherwise pay for a failed insert on
 * most batches. Measured on 1,000-row batches holding one held key: a failed insert then the conflict-tolerant
 * statements took about twice as long as the conflict-tolerant statements alone.
 */
export const CAUTIOUS_BATCHES = 8;

/**
 * How many single enqueues after one whose `SQL_ENQUEUE_INSERT` met a stored row go straight to `SQL_ENQUEUE`: a
 * deduped enqueue pays two statements on the fast path (the insert that met the row, then the judging statement).
 * Measured on one connection, 8 interleaved rounds of 1,000 (load ~6): a created job 401 -> 312 µs of backend CPU on
 * the fast path, a deduped one 118 -> 264 µs (wall 214 -> 459 µs) without this memory.
 */
export const CAUTIOUS_SINGLES = 8;

/**
 * What one driver's enqueues remember: how many more batches skip the optimistic path (`cautious`) and how many more
 * single enqueues skip the fast insert (`singles`), after meeting stored rows; which wake slots its own single
 * enqueues settled (`wake`); and which queues' last hand-off missed lately (`handOff`).
 */
export interface BatchMemory {
  cautious: number;
  singles: number;
  readonly wake: WakeMemo;
  readonly handOff: HandOffMemo;
}

/** A fresh {@link BatchMemory}: the next batch tries the optimistic path, the next single enqueue the fast insert. */
export const batchMemory = (): BatchMemory => ({
  cautious: 0,
  singles: 0,
  wake: new WakeMemo(),
  handOff: new HandOffMemo(),
});

/**
 * Inserts a batch, answering one result per request in order, each what enqueuing the requests one after another
 * would answer (see `SQL_ENQUEUE_MANY`). Over a shared executor a batch repeating no id or key first takes the
 * optimistic path (`SQL_ENQUEUE_BATCH`): one plain insert that lands every row or none. Otherwise, or when a stored
 * row held one of its ids or keys, a batch with no strict request and no repeat takes the conflict-tolerant fast path
 * (`SQL_ENQUEUE_FRESH`), and only the requests it did not insert are judged by `SQL_ENQUEUE_MANY`. Requests that met
 * a concurrently committed row are re-run, in order, in one more statement. With `memory`, a batch whose optimistic
 * insert met a stored row sends the next {@link CAUTIOUS_BATCHES} batches the conflict-tolerant way first.
 */
export async function enqueueMany(
  ctx: PgContext,
  requests: readonly EnqueueRequest[],
  memory?: BatchMemory,
): Promise<EnqueueResult[]> {
  if (ctx.executor.shared === true && !repeats(requests)) {
    if (memory !== undefined && memory.cautious > 0) {
      memory.cautious--;
    } else {
      const created = await enqueueOptimistic(ctx, requests);
      if (created !== undefined) return created;
      if (memory !== undefined) memory.cautious = CAUTIOUS_BATCHES;
    }
  }
  const results: (EnqueueResult | null)[] = requests.map(() => null);
  let pending = requests.map((_, i) => i);
  const settle = (answers: readonly (EnqueueResult | null)[]): void => {
    pending = pending.filter((index, at) => {
      results[index] = answers[at] ?? null;
      return results[index] === null;
    });
  };
  if (isFresh(requests)) settle(await enqueueFresh(ctx, requests));
  for (let run = 0; run <= RACE_RETRIES && pending.length > 0; run++) {
    settle(
      await enqueuePass(
        ctx,
        pending.map((i) => requests[i] as EnqueueRequest),
      ),
    );
  }
  if (pending.length > 0) {
    throw new InvariantError(`jobs-pg: enqueueMany kept meeting concurrent writes.`);
  }
  return results as EnqueueResult[];
}
