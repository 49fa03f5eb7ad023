import { prepareEnqueue } from '../../declare/enqueue';
import type { EnqueueActor, EnqueueOptions, JobHandle } from '../../declare/handle';
import { job } from '../../declare/job';
import type { StepApi } from '../../declare/run-args';
import type { EnqueueRequest } from '../../driver/job-driver';
import { claimOf, type ClaimedJob } from '../../driver/job-row';
import { errorCodeOf } from '../../errors/jobs-error';
import { memoryEventBus } from '../../events/memory-event-bus';
import { createStepApi } from '../../runtime/steps';
import type { StandardSchemaV1 } from '../../schema/standard';
import type { Harness } from './harness';

/** A schema that accepts any value as it is: the value contract, not a schema, is what these suites probe. */
export const anyInput: StandardSchemaV1<unknown, unknown> = {
  '~standard': { version: 1, vendor: 'conformance', validate: (value) => ({ value }) },
};

/** What a probe job derives its key and tenant from: any input carrying `key` / `tenant` strings. */
interface ProbeInput {
  readonly key?: unknown;
  readonly tenant?: unknown;
}

let probes = 0;

/**
 * A job whose key and tenant are the input's `key` and `tenant` (a fresh key when absent); with `freshKeys`, every
 * input gets a fresh key whatever it holds (for generated inputs).
 */
export function probeJob(
  declaration: { readonly tenant?: 'input'; readonly freshKeys?: boolean } = {},
): JobHandle<unknown, unknown, unknown> {
  return job({
    name: `conformance.values.${++probes}`,
    queue: 'conformance-q',
    input: anyInput,
    idempotencyKey: (input) => {
      const key = declaration.freshKeys ? undefined : (input as ProbeInput | null)?.key;
      return key === undefined ? `probe:${++probes}` : (key as string);
    },
    tenant:
      declaration.tenant === 'input'
        ? (input) => (input as ProbeInput | null)?.tenant as string
        : 'none',
  }) as unknown as JobHandle<unknown, unknown, unknown>;
}

/** The row core would hand a driver for `input`, at the harness's time: what `handle.enqueue()` builds. */
export function prepare(
  h: Harness,
  handle: JobHandle<unknown, unknown, unknown>,
  input: unknown,
  options: EnqueueOptions = {},
  actor?: EnqueueActor,
): Promise<EnqueueRequest> {
  return prepareEnqueue(handle, input, options, actor, h.clock().now());
}

/** Enqueues through core and the driver, as `handle.enqueue()` does. */
export async function enqueueThroughCore(
  h: Harness,
  handle: JobHandle<unknown, unknown, unknown>,
  input: unknown,
  options: EnqueueOptions = {},
): Promise<EnqueueRequest> {
  const request = await prepare(h, handle, input, options);
  await h.driver().enqueue(request);
  return request;
}

/** The step API one attempt of a claimed row gets, over the harness's driver and clock. */
export function stepsOf(h: Harness, row: ClaimedJob): StepApi {
  return createStepApi({
    driver: h.driver(),
    jobId: row.id,
    claim: claimOf(row),
    attempt: row.attempt,
    clock: h.clock(),
    events: memoryEventBus({ clock: h.clock() }),
    signal: new AbortController().signal,
    stepTimeoutMs: undefined,
    eventPollMs: 30_000,
    load: () => h.driver().steps.load(row.id),
  });
}

/**
 * Runs `attempts` attempts of one row the way a worker would: claim, run `body` with the attempt's step API, and nack
 * whatever it threw (the body is expected to fail). Answers the code each attempt failed with.
 */
export async function attemptsOf(
  h: Harness,
  request: EnqueueRequest,
  attempts: number,
  body: (step: StepApi) => Promise<unknown>,
): Promise<(string | undefined)[]> {
  const codes: (string | undefined)[] = [];
  for (let i = 0; i < attempts; i++) {
    const [row] = await h.claim({ queue: request.queue, limit: 1 });
    if (!row || row.id !== request.id)
      throw new Error(`conformance: attempt ${i + 1} claimed no row`);
    let failure: unknown;
    try {
      await body(stepsOf(h, row));
    } catch (error) {
      failure = error;
    }
    codes.push(errorCodeOf(failure));
    // the last attempt buries the row, so the next probe's claim cannot take it
    const kind = i === attempts - 1 ? 'dead' : 'retry';
    await h.driver().nack(row.id, { ...claimOf(row), kind, error: String(failure) });
  }
  return codes;
}

/** The code a promise rejected with, or `'resolved'`. Synchronous throws count as rejections. */
export async function outcomeCode(run: () => unknown): Promise<string | undefined> {
  try {
    await run();
    return 'resolved';
  } catch (error) {
    return errorCodeOf(error) ?? `uncoded: ${String(error).slice(0, 120)}`;
  }
}

/** `{ a: { a: … 1 } }`, `depth` levels deep, built without recursion. */
export function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/**
 * The exact text of a JSON value: equal texts mean equal values with the same key order, the same own `__proto__`
 * keys and the same strings, lone surrogates included (`JSON.stringify` escapes them).
 */
export function exactText(value: unknown): string | undefined {
  return JSON.stringify(value);
}
