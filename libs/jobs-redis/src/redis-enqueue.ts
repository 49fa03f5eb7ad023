import {
  inputJsonOf,
  InvariantError,
  JobDuplicateError,
  type EnqueueRequest,
  type EnqueueResult,
} from '@ultimat3/jobs';
import { ENQUEUE_FIELDS } from './lua/enqueue-core.lua';
import { ENQUEUE_ONE_PLAIN, ENQUEUE_ONE_PLAIN_FIELDS } from './lua/enqueue-one.lua';
import type { RedisContext } from './redis-context';
import { NULL_ARG } from './redis-rows';
import type { ScriptArg, ScriptReply } from './redis-scripts';

const orNull = (value: string | null | undefined): string => value ?? NULL_ARG;

/** Appends the {@link ENQUEUE_FIELDS} arguments of one request to `args`, in the script's order. */
function pushRequestArgs(args: ScriptArg[], r: EnqueueRequest): void {
  const start = args.length;
  args.push(
    r.id,
    r.runId,
    r.name,
    r.queue,
    inputJsonOf(r) ?? 'null',
    r.idempotencyKey,
    orNull(r.tenantId),
    orNull(r.enqueuedBy),
    String(r.runAt),
    String(r.maxAttempts),
    String(r.priority),
    r.onConflict,
    orNull(r.concurrencyKey),
    orNull(r.traceparent),
    orNull(r.crossTenantReason),
  );
  if (args.length - start !== ENQUEUE_FIELDS)
    throw new InvariantError('redis enqueue: argument layout drifted.');
}

/**
 * The arguments of a batch of requests: the count, then each request's {@link ENQUEUE_FIELDS}, written into one array
 * (a serial enqueue builds no per-request array to copy from).
 */
export function enqueueArgs(requests: readonly EnqueueRequest[]): ScriptArg[] {
  const args: ScriptArg[] = [String(requests.length)];
  for (const r of requests) pushRequestArgs(args, r);
  return args;
}

const absent = (value: string | null | undefined): boolean => value === null || value === undefined;

/**
 * The arguments of ONE request: the plain layout ({@link ENQUEUE_ONE_PLAIN}: its nine fields alone) when its optional
 * fields are all null and it dedupes on conflict — an app's common enqueue — else the batch layout of a batch of one.
 */
export function enqueueOneArgs(r: EnqueueRequest): ScriptArg[] {
  if (
    r.onConflict !== 'dedupe' ||
    !absent(r.tenantId) ||
    !absent(r.enqueuedBy) ||
    !absent(r.concurrencyKey) ||
    !absent(r.traceparent) ||
    !absent(r.crossTenantReason)
  )
    return enqueueArgs([r]);
  const args: ScriptArg[] = [
    ENQUEUE_ONE_PLAIN,
    r.id,
    r.runId,
    r.name,
    r.queue,
    inputJsonOf(r) ?? 'null',
    r.idempotencyKey,
    String(r.runAt),
    String(r.maxAttempts),
    String(r.priority),
  ];
  if (args.length - 1 !== ENQUEUE_ONE_PLAIN_FIELDS)
    throw new InvariantError('redis enqueue: plain argument layout drifted.');
  return args;
}

/**
 * A batch's results from the script's reply (`enqueue`, or a scheduler fire that enqueued): one per request, in
 * order (the integer 1 answers a batch of one inserted fresh); X_JOB_DUPLICATE (nothing was written) when a request
 * under `onConflict: 'error'` met a live key.
 */
export function enqueueAnswer(
  requests: readonly EnqueueRequest[],
  reply: ScriptReply,
): EnqueueResult[] {
  // a batch of one inserted fresh: its own ids
  if (reply === 1 && requests.length === 1)
    return [{ id: requests[0]!.id, runId: requests[0]!.runId, deduped: false }];
  const out = Array.isArray(reply) ? reply.map(String) : [];
  if (out[0] === 'conflict') {
    const request = requests[Number(out[1]) - 1]!;
    const tenant = request.tenantId ? ` for tenant "${request.tenantId}"` : '';
    throw new JobDuplicateError(
      `Job "${request.name}" already has a live run (job ${out[2]}, ${out[4]}) under idempotency key "${request.idempotencyKey}"${tenant}.`,
      "Wait for that run to finish, or enqueue with onConflict: 'dedupe' to receive its ids.",
      { job: request.name, id: out[2], runId: out[3], state: out[4] },
    );
  }
  const results: EnqueueResult[] = [];
  for (let i = 1; i + 2 < out.length; i += 3) {
    results.push({ id: out[i]!, runId: out[i + 1]!, deduped: out[i + 2] === '1' });
  }
  if (results.length !== requests.length) {
    throw new InvariantError(
      `redis enqueue answered ${results.length} results for ${requests.length} requests.`,
    );
  }
  return results;
}

/**
 * Inserts the rows of `requests` in one script, all or nothing: answers one result per request, in order, or throws
 * X_JOB_DUPLICATE (writing nothing) when a request under `onConflict: 'error'` meets a live key.
 */
export async function enqueueRows(
  ctx: RedisContext,
  requests: readonly EnqueueRequest[],
): Promise<EnqueueResult[]> {
  if (requests.length === 0) return [];
  const args = requests.length === 1 ? enqueueOneArgs(requests[0]!) : enqueueArgs(requests);
  return enqueueAnswer(requests, await ctx.run('enqueue', args));
}

/**
 * Inserts the row of ONE request ({@link enqueueRows} of a batch of one, without the batch): its result, or
 * X_JOB_DUPLICATE (writing nothing) when it is under `onConflict: 'error'` and meets a live key.
 */
export function enqueueRow(ctx: RedisContext, request: EnqueueRequest): Promise<EnqueueResult> {
  return ctx.run('enqueue', enqueueOneArgs(request)).then((reply) =>
    // inserted fresh: its own ids
    reply === 1
      ? { id: request.id, runId: request.runId, deduped: false }
      : enqueueAnswer([request], reply)[0]!,
  );
}
