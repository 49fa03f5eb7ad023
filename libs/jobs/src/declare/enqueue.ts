import type { EnqueueRequest, EnqueueResult } from '../driver/job-driver';
import {
  JobDeclarationInvalidError,
  JobInputInvalidError,
  JobPayloadTooLargeError,
} from '../errors/declaration-errors';
import { parseDuration } from '../util/duration';
import { uuidv7 } from '../util/ids';
import { jsonProblem, type JsonValue } from '../util/json';
import { jobsFacade } from './ambient';
import type { EnqueueActor, EnqueueOptions, JobHandle } from './handle';
import { assertName, MAX_QUEUE_NAME_LENGTH } from './names';

/** The largest input an enqueue accepts, serialised (1 MiB). Large data belongs elsewhere, referenced by id. */
export const MAX_INPUT_BYTES = 1_048_576;

/**
 * Builds the row one enqueue writes: parses the input (a bad one is refused here, with the schema's path, and nothing
 * is queued), derives the key, tenant and concurrency key, and mints the ids.
 */
export async function prepareEnqueue<In, Out>(
  handle: JobHandle<In, Out, unknown>,
  raw: In,
  options: EnqueueOptions,
  actor: EnqueueActor | undefined,
  nowMs: number,
): Promise<EnqueueRequest> {
  const parsed = await handle.parseInput(raw);
  if (!parsed.ok) throw new JobInputInvalidError(handle.name, parsed.issues);
  const problem = jsonProblem(parsed.value);
  if (problem !== undefined) {
    throw new JobInputInvalidError(handle.name, [
      { path: '', message: `the parsed input is not JSON: ${problem}` },
    ]);
  }
  const input = parsed.value as JsonValue;
  const bytes = Buffer.byteLength(JSON.stringify(input));
  if (bytes > MAX_INPUT_BYTES)
    throw new JobPayloadTooLargeError(handle.name, bytes, MAX_INPUT_BYTES);

  const declaredTenant = handle.tenantOf(parsed.value);
  const runId = options.runId ?? uuidv7(nowMs);
  if (typeof runId !== 'string' || runId.length === 0 || runId.length > 128) {
    throw new JobDeclarationInvalidError(
      handle.name,
      'options.runId',
      'must be a non-empty string of at most 128 characters',
    );
  }
  return {
    id: uuidv7(nowMs),
    runId,
    name: handle.name,
    queue:
      options.queue === undefined
        ? handle.queue
        : assertName(handle.name, 'options.queue', options.queue, MAX_QUEUE_NAME_LENGTH),
    input,
    idempotencyKey: handle.idempotencyKeyOf(parsed.value),
    tenantId: declaredTenant ?? actor?.orgId ?? null,
    enqueuedBy: actor?.id ?? null,
    runAt: resolveRunAt(handle.name, options, nowMs),
    maxAttempts: handle.retry.attempts,
    priority: options.priority ?? handle.priority,
    onConflict: options.onConflict ?? 'dedupe',
    concurrencyKey: handle.concurrencyKeyOf(parsed.value),
    traceparent: null,
  };
}

function resolveRunAt(job: string, options: EnqueueOptions, nowMs: number): number {
  if (options.runAt !== undefined && options.delay !== undefined) {
    throw new JobDeclarationInvalidError(job, 'options', 'takes runAt or delay, not both');
  }
  if (options.runAt !== undefined) {
    const at = options.runAt instanceof Date ? options.runAt.getTime() : options.runAt;
    if (!Number.isFinite(at))
      throw new JobDeclarationInvalidError(
        job,
        'options.runAt',
        'must be a valid Date or epoch ms',
      );
    return at;
  }
  if (options.delay !== undefined) {
    const ms = parseDuration(options.delay);
    if (ms === undefined)
      throw new JobDeclarationInvalidError(
        job,
        'options.delay',
        'must be a duration such as 5000 or "5s"',
      );
    return nowMs + ms;
  }
  return nowMs;
}

/** What `handle.enqueue()` and `handle.as()` do: prepare the row and hand it to the installed facade. */
export async function enqueueJob<In, Out>(
  handle: JobHandle<In, Out, unknown>,
  raw: In,
  options: EnqueueOptions,
  actor: EnqueueActor | undefined,
): Promise<EnqueueResult> {
  const facade = jobsFacade();
  const request = await prepareEnqueue(handle, raw, options, actor, facade.now());
  const tx = options.tx ?? options.manager;
  return facade.enqueue(request, tx === undefined ? {} : { tx });
}
