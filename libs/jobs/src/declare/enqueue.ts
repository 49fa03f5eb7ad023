import type { EnqueueRequest, EnqueueResult } from '../driver/job-driver';
import {
  EnqueueOptionsInvalidError,
  JobInputInvalidError,
  JobPayloadTooLargeError,
  type JobInputIssue,
} from '../errors/declaration-errors';
import { activeTraceparent } from '../tracing/run-span';
import { enqueueTenant } from '../runtime/tenant';
import { uuidv7, uuidv7Ascending, uuidv7Batch } from '../util/ids';
import type { ParseResult } from '../schema/standard';
import { jsonProblem, type JsonValue } from '../util/json';
import { withCheckedInput } from '../values/checked-input';
import { jobsFacade } from './ambient';
import type { EnqueueActor, EnqueueOptions, JobHandle } from './handle';
import { assertActor, resolveOptions, type ResolvedOptions } from './enqueue-options';
import { parseAll, ThrownByParse, type ItemParse } from './enqueue-parse';

/** The largest input an enqueue accepts, serialised (1 MiB). Large data belongs elsewhere, referenced by id. */
export const MAX_INPUT_BYTES = 1_048_576;

/**
 * The input a run will see, for an input whose schema may not store it as it parsed it (a DTO instance stored as plain
 * JSON, a zod or valibot schema whose transforms or coercions changed it): the stored JSON parsed again, as every run
 * parses it. The key, tenant and concurrency key are derived from it. A stored form that would not parse back, or that
 * parses back to a value stored otherwise (a transform applied again, `z.number().transform((n) => n * 100)`), is
 * refused now, instead of failing every attempt or handing the body another value than the one enqueued.
 */
function asStored<In, Out>(
  handle: JobHandle<In, Out, unknown>,
  stored: unknown,
  json: string,
): Out | Promise<Out> {
  const again = handle.parseInputNow(stored);
  return again instanceof Promise
    ? again.then((p) => readBack(handle, p, json))
    : readBack(handle, again, json);
}

/** The value of a stored input parsed again, when it parsed and stores as it was stored; else `X_JOB_INPUT_INVALID`. */
function readBack<In, Out>(
  handle: JobHandle<In, Out, unknown>,
  again: ParseResult<Out>,
  json: string,
): Out {
  if (!again.ok) {
    throw new JobInputInvalidError(
      handle.name,
      again.issues.map((i) => ({ ...i, message: `${i.message} (once stored as JSON)` })),
    );
  }
  if (JSON.stringify(handle.storedInput(again.value)) !== json) {
    throw new JobInputInvalidError(handle.name, [
      {
        path: '',
        message:
          'the schema changes its own output when a run reads the stored input back (a transform that is not ' +
          'idempotent): the body would receive another value than the one enqueued',
      },
    ]);
  }
  return again.value;
}

/**
 * The UTF-8 length of `text`, or a bound of it: a UTF-16 code unit is at most 3 UTF-8 bytes, so a text under a third
 * of {@link MAX_INPUT_BYTES} long is answered by its length (below the limit either way) without a pass over it.
 */
const utf8Bytes = (text: string): number =>
  text.length * 3 <= MAX_INPUT_BYTES ? text.length : Buffer.byteLength(text);

/**
 * What every row of one enqueue call shares: the handle, the resolved options, the actor, the clock reading the ids
 * are minted at, and the span active at the call (an HTTP request's, say), which each run opens its own as the child
 * of. Read once a call, so a batch's rows do not each look the span up.
 */
interface RowContext<In, Out> {
  readonly handle: JobHandle<In, Out, unknown>;
  readonly resolved: ResolvedOptions;
  readonly actor: EnqueueActor | undefined;
  readonly nowMs: number;
  readonly traceparent: string | null;
}

const rowContext = <In, Out>(
  handle: JobHandle<In, Out, unknown>,
  resolved: ResolvedOptions,
  actor: EnqueueActor | undefined,
  nowMs: number,
): RowContext<In, Out> => ({ handle, resolved, actor, nowMs, traceparent: activeTraceparent() });

/**
 * Builds one row from its parsed input: refuses a bad or oversized one, derives the key, tenant and concurrency key,
 * and takes the ids (`id` and `runId` when the batch minted them, else minted now; the run id the options' when they
 * name one). Answers at once, a promise only when a validator answers one (a `t` input is not parsed again, any other
 * is, see `asStored`): a batch pays no promise a row.
 */
function rowOf<In, Out>(
  context: RowContext<In, Out>,
  parsed: ParseResult<Out>,
  id?: string,
  runId?: string,
): EnqueueRequest | Promise<EnqueueRequest> {
  const { handle, resolved, nowMs } = context;
  if (!parsed.ok) throw new JobInputInvalidError(handle.name, parsed.issues);
  const input = handle.storedInput(parsed.value);
  const problem = jsonProblem(input);
  if (problem !== undefined) {
    throw new JobInputInvalidError(handle.name, [
      { path: '', message: `the parsed input is not storable JSON: ${problem}` },
    ]);
  }
  const json = JSON.stringify(input);
  const bytes = utf8Bytes(json);
  if (bytes > MAX_INPUT_BYTES)
    throw new JobPayloadTooLargeError(handle.name, bytes, MAX_INPUT_BYTES);
  const rowId = id ?? uuidv7(nowMs);
  const rowRunId = runId ?? resolved.runId ?? uuidv7(nowMs);
  // the input checked and encoded here once: the driver's request check and its write take this text
  if (input === parsed.value && handle.storesAsParsed) {
    return rowFor(context, input as JsonValue, parsed.value, rowId, rowRunId, json);
  }
  const value = asStored(handle, input, json);
  return value instanceof Promise
    ? value.then((v) => rowFor(context, input as JsonValue, v, rowId, rowRunId, json))
    : rowFor(context, input as JsonValue, value, rowId, rowRunId, json);
}

/**
 * The row of a stored input (`json` its checked text) and the value its key, tenant and concurrency key are derived
 * from.
 */
function rowFor<In, Out>(
  { handle, resolved, actor, traceparent }: RowContext<In, Out>,
  input: JsonValue,
  value: Out,
  id: string,
  runId: string,
  json: string,
): EnqueueRequest {
  const declaredTenant = handle.tenantOf(value);
  // inside a run: another tenant's job is X_JOB_TENANT_MISMATCH unless inside crossTenant(), whose reason the row keeps
  const crossTenantReason = enqueueTenant(handle.name, declaredTenant);
  const fields: EnqueueRequest = {
    id,
    runId,
    name: handle.name,
    queue: resolved.queue ?? handle.queue,
    input,
    idempotencyKey: handle.idempotencyKeyOf(value),
    // an actor's '' id or org is none, as null (see assertActor)
    tenantId: declaredTenant ?? (actor?.orgId || null),
    enqueuedBy: actor?.id || null,
    runAt: resolved.runAt,
    maxAttempts: handle.retry.attempts,
    priority: resolved.priority ?? handle.priority,
    onConflict: resolved.onConflict,
    concurrencyKey: handle.concurrencyKeyOf(value),
    crossTenantReason,
    traceparent,
  };
  return withCheckedInput(fields, json);
}

/**
 * Builds the row one enqueue writes: checks the options (`X_JOB_OPTIONS_INVALID`), parses the input (a bad one is
 * refused here, with the schema's path, and nothing is queued), derives the key, tenant and concurrency key, and mints
 * the ids.
 */
export async function prepareEnqueue<In, Out>(
  handle: JobHandle<In, Out, unknown>,
  raw: In,
  options: EnqueueOptions,
  actor: EnqueueActor | undefined,
  nowMs: number,
): Promise<EnqueueRequest> {
  return prepareEnqueueNow(handle, raw, options, actor, nowMs);
}

/**
 * {@link prepareEnqueue} without a promise when none is needed: the row at once for a validator that answers
 * synchronously (most do) and an input stored as parsed, so `handle.enqueue()` reaches the driver in the same turn,
 * with no await between; a promise of it otherwise. A refusal is thrown.
 */
function prepareEnqueueNow<In, Out>(
  handle: JobHandle<In, Out, unknown>,
  raw: In,
  options: EnqueueOptions,
  actor: EnqueueActor | undefined,
  nowMs: number,
): EnqueueRequest | Promise<EnqueueRequest> {
  const resolved = resolveOptions(handle.name, options, nowMs);
  assertActor(handle.name, actor);
  const parsed = handle.parseInputNow(raw);
  const context = rowContext(handle, resolved, actor, nowMs);
  return parsed instanceof Promise ? parsed.then((p) => rowOf(context, p)) : rowOf(context, parsed);
}

/**
 * The problems of one batch item as issues carrying its index, when they are the item's own (its input fails the
 * schema, or is over the size limit); undefined for any other error, which is not about the item and propagates.
 */
function itemIssues(index: number, error: unknown): JobInputIssue[] | undefined {
  if (error instanceof JobInputInvalidError) return error.issues.map((i) => ({ ...i, index }));
  if (error instanceof JobPayloadTooLargeError) {
    const { bytes, limit } = error.meta as { bytes: number; limit: number };
    return [{ index, path: '', message: `is ${bytes} bytes, over the ${limit}-byte limit` }];
  }
  return undefined;
}

/**
 * Builds every row of a batch, or refuses the batch: the options once (`X_JOB_OPTIONS_INVALID`), then each item.
 * Items whose input fails the schema or the size limit are ALL reported, in one `X_JOB_INPUT_INVALID` whose issues
 * carry each item's `index`; nothing is written then.
 */
export async function prepareEnqueueMany<In, Out>(
  handle: JobHandle<In, Out, unknown>,
  raws: readonly In[],
  options: EnqueueOptions,
  actor: EnqueueActor | undefined,
  nowMs: number,
): Promise<EnqueueRequest[]> {
  if (!Array.isArray(raws)) {
    throw new EnqueueOptionsInvalidError(handle.name, 'inputs', 'must be an array of inputs');
  }
  const resolved = resolveOptions(handle.name, options, nowMs);
  assertActor(handle.name, actor);
  // Ids handed out in ascending order keep the batch in the order given wherever rows tie on everything else (a
  // claim's priority and run time, an outbox row's stage time).
  const ids = uuidv7Ascending(nowMs, raws.length);
  const runIds = resolved.runId === undefined ? uuidv7Batch(nowMs, raws.length) : undefined;
  const parses = await parseAll(handle, raws);
  const context = rowContext(handle, resolved, actor, nowMs);
  const requests: EnqueueRequest[] = [];
  const issues: JobInputIssue[] = [];
  for (let index = 0; index < raws.length; index++) {
    try {
      const parsed = parses[index] as ItemParse<Out>;
      if (parsed instanceof ThrownByParse) throw parsed.error;
      const row = rowOf(context, parsed, ids[index], runIds?.[index]);
      requests.push(row instanceof Promise ? await row : row);
    } catch (error) {
      const found = itemIssues(index, error);
      if (found === undefined) throw error;
      issues.push(...found);
    }
  }
  if (issues.length > 0) throw new JobInputInvalidError(handle.name, issues);
  return requests;
}

/** Tells `onEnqueued` once per queue a batch landed a new row in (a deduped row wakes nothing). */
export function announceLanded(
  requests: readonly EnqueueRequest[],
  results: readonly EnqueueResult[],
  onEnqueued: ((queue: string) => void) | undefined,
): void {
  if (onEnqueued === undefined) return;
  const queues = new Set<string>();
  results.forEach((result, i) => {
    const queue = requests[i]?.queue;
    if (!result.deduped && queue !== undefined) queues.add(queue);
  });
  for (const queue of queues) onEnqueued(queue);
}

/** The caller's explicit transaction, by either name. */
const txOf = (options: EnqueueOptions): { readonly tx?: unknown } => {
  const tx = options.tx ?? options.manager;
  return tx === undefined ? {} : { tx };
};

/** What `handle.enqueue()` and `handle.as()` do: prepare the row and hand it to the installed facade. */
export async function enqueueJob<In, Out>(
  handle: JobHandle<In, Out, unknown>,
  raw: In,
  options: EnqueueOptions,
  actor: EnqueueActor | undefined,
): Promise<EnqueueResult> {
  const facade = jobsFacade();
  const prepared = prepareEnqueueNow(handle, raw, options, actor, facade.now());
  // a row built at once goes to the facade in this turn: no await, no microtask, before the driver writes it
  const request = prepared instanceof Promise ? await prepared : prepared;
  return facade.enqueue(request, txOf(options));
}

/**
 * What `handle.enqueueMany()` does: prepare every row (refusing the batch if any item is invalid) and hand them to the
 * installed facade as one write. An empty batch answers `[]` without touching the facade's storage.
 */
export async function enqueueJobs<In, Out>(
  handle: JobHandle<In, Out, unknown>,
  raws: readonly In[],
  options: EnqueueOptions,
  actor: EnqueueActor | undefined,
): Promise<EnqueueResult[]> {
  const facade = jobsFacade();
  const requests = await prepareEnqueueMany(handle, raws, options, actor, facade.now());
  if (requests.length === 0) return [];
  return [...(await facade.enqueueMany(requests, txOf(options)))];
}
