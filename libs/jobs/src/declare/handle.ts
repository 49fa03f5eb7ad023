import type { EnqueueResult } from '../driver/job-driver';
import type { ParseResult } from '../schema/standard';
import type { Duration } from '../util/duration';
import type { ResolvedConcurrency } from './concurrency';
import type { JobDescriptor } from './descriptor';
import type { ResolvedRetryPolicy } from './retry-policy';
import type { JobSettled, RunArgs } from './run-args';

/** The actor an enqueue acts for: its id is recorded as `enqueuedBy`, its org as the row's tenant. */
export interface EnqueueActor {
  /** The actor's id, recorded as the row's `enqueuedBy`. */
  readonly id?: string | null;
  /** The actor's org; becomes the row's tenant. */
  readonly orgId?: string | null;
}

/** Options of one enqueue. */
export interface EnqueueOptions {
  /**
   * Names the run instead of having one minted: a UUID (any version), else `X_JOB_OPTIONS_INVALID`. Given to
   * `enqueueMany`, it names the run of every job of the batch.
   */
  readonly runId?: string;
  /** A live row already holding the idempotency key: dedupe to it (default), or `X_JOB_DUPLICATE`. */
  readonly onConflict?: 'dedupe' | 'error';
  /** When the job is due (a Date or epoch ms). */
  readonly runAt?: Date | number;
  /** Due after this long. */
  readonly delay?: Duration;
  /** Overrides the declared queue. */
  readonly queue?: string;
  /** Overrides the declared priority. */
  readonly priority?: number;
  /** The caller's transaction (a TypeORM EntityManager or QueryRunner) for the outbox to stage in. */
  readonly tx?: unknown;
  /** The same as `tx`, by TypeORM's name for it: `{ manager }` inside `dataSource.transaction(async (manager) => …)`. */
  readonly manager?: unknown;
}

/**
 * The typed surface of one job: enqueue it from anywhere, describe it, and (for the runtime) parse and run it.
 * `In` is what `enqueue` takes, `Out` what the body receives, `R` what the body returns.
 */
export interface JobHandle<In, Out = In, R = unknown> {
  /** Always `'job'`: tells a job handle from a task handle. */
  readonly kind: 'job';
  /** The durable queue key. */
  readonly name: string;
  /** Whether `name:` was set on the declaration (an explicit name is never re-stamped). */
  readonly explicitName: boolean;
  /** The queue enqueues go to unless `options.queue` overrides it. */
  readonly queue: string;
  /** The retry policy, every default filled in. */
  readonly retry: ResolvedRetryPolicy;
  /** The default priority; lower runs first. */
  readonly priority: number;
  /** The per-attempt deadline in ms, or undefined for none. */
  readonly timeoutMs: number | undefined;
  /** The per-`step.run` deadline in ms, or undefined for none. */
  readonly stepTimeoutMs: number | undefined;
  /** How long a `step.waitForEvent` parks between polls, in ms (default 30 s). */
  readonly eventPollMs: number;
  /** The checked fleet-wide concurrency cap, or null when none is declared. */
  readonly concurrency: ResolvedConcurrency | null;
  /** `'input'` when the tenant is derived from the input, `'none'` when the job belongs to no tenant. */
  readonly tenantMode: 'input' | 'none';
  /** Whether the declaration carries its own body. */
  readonly inline: boolean;
  /**
   * Whether the declaration has an `onSettled` hook. A worker skips telling a job without one (no scope, no promise
   * per run); absent, it assumes there may be one.
   */
  readonly hasOnSettled?: boolean;
  /** Queues one run; answers the job's own ids on every path, and whether an existing row was returned. */
  enqueue(input: In, options?: EnqueueOptions): Promise<EnqueueResult>;
  /** The same, on behalf of `actor`: `enqueuedBy` from its id, the tenant from its org. Never runs inline. */
  as(actor: EnqueueActor, input: In, options?: EnqueueOptions): Promise<EnqueueResult>;
  /**
   * Queues one run per input in ONE write — one statement, or one stage in the caller's transaction (`{ tx }`,
   * `{ manager }` or the ambient outbox transaction) — and answers one `{ id, runId, deduped }` per input, in order.
   * `options` apply to every item. Every item is checked first: items whose input fails the schema or the size limit
   * are all reported in one `X_JOB_INPUT_INVALID` whose issues carry the item's `index`, and nothing is written. Items
   * are judged as if enqueued one by one: a later item with an earlier one's idempotency key answers that one's ids.
   * An empty array answers `[]`.
   */
  enqueueMany(inputs: readonly In[], options?: EnqueueOptions): Promise<EnqueueResult[]>;
  /** The JSON manifest row. */
  describe(): JobDescriptor;
  /** Parses a raw input through the declared schema. */
  parseInput(raw: unknown): Promise<ParseResult<Out>>;
  /**
   * {@link JobHandle.parseInput} without a promise for a validator that answers synchronously: its result as it is,
   * a promise of it for an asynchronous one; a validator's throw is thrown. What a worker parses a claimed row through.
   */
  parseInputNow(raw: unknown): ParseResult<Out> | Promise<ParseResult<Out>>;
  /**
   * The JSON a parsed input is stored as: the value itself for a schema; for a DTO class, the instance turned back
   * into plain JSON (`instanceToPlain`).
   */
  storedInput(input: Out): unknown;
  /**
   * Whether a parsed input is stored as it is and parses back to itself by construction (a `t` schema: no transforms),
   * so an enqueue need not parse its stored form again as a run will.
   */
  readonly storesAsParsed: boolean;
  /** The tenant the declaration derives for a parsed input, or null for `'none'`. */
  tenantOf(input: Out): string | null;
  /** The idempotency key the declaration derives for a parsed input. */
  idempotencyKeyOf(input: Out): string;
  /** The keyed concurrency key for a parsed input, or null when the job declares none. */
  concurrencyKeyOf(input: Out): string | null;
  /**
   * Calls the inline body as it is (a value, a promise, or a throw): the attempt waits only for a promise. Undefined
   * when the declaration has none.
   */
  runInline(args: RunArgs<Out>): R | Promise<R> | undefined;
  /** Calls the declared onSettled (a no-op when none). */
  notifySettled(settled: JobSettled<Out, R>): Promise<void>;
}

/** Any job handle, whatever its types. */
export type AnyJobHandle = JobHandle<never, unknown, unknown>;

/** The input type `enqueue` takes. */
export type JobInput<H> = H extends JobHandle<infer In, unknown, unknown> ? In : never;
