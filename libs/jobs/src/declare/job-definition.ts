import type { DtoClass, DtoInput } from '../schema/dto/dto-types';
import type { StandardSchemaV1 } from '../schema/standard';
import type { Duration } from '../util/duration';
import type { JobConcurrency } from './concurrency';
import type { RetryPolicy } from './retry-policy';
import type { JobSettled, RunArgs } from './run-args';

/**
 * What `input:` takes: any Standard Schema validator (this package's `t`, zod, valibot, …), or a class-validator DTO
 * class (needs the optional peers `class-validator` and `class-transformer`).
 */
export type JobInputSchema = StandardSchemaV1 | DtoClass;

/** What `enqueue` takes for an input schema: the schema's input type, or a DTO class's data as plain values. */
export type InputOf<S extends JobInputSchema> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferInput<S>
  : S extends DtoClass<infer T>
    ? DtoInput<T>
    : never;

/** What the body receives for an input schema: the schema's output type, or an instance of the DTO class. */
export type OutputOf<S extends JobInputSchema> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : S extends DtoClass<infer T>
    ? T
    : never;

/** What `job()` takes. `idempotencyKey` and `tenant` are required: every job can be deduped and acts under a tenant. */
export interface JobDefinition<S extends JobInputSchema, R> {
  /** The durable queue key. Set it, or let `JobsModule.forFeature` stamp the export name. */
  readonly name?: string;
  /**
   * Any Standard Schema validator (this package's `t`, zod, valibot, …), or a class-validator DTO class. What is
   * stored is JSON either way; a DTO's body receives an instance of the class rebuilt from the stored JSON on every
   * attempt (see `dtoSchema`).
   */
  readonly input: S;
  /** Which enqueues are the same job: a live row holding this key dedupes a second enqueue. REQUIRED. */
  readonly idempotencyKey: (input: OutputOf<S>) => string;
  /** The org the run acts under, or `'none'` for a job that belongs to no tenant. REQUIRED. */
  readonly tenant: ((input: OutputOf<S>) => string) | 'none';
  /** How a failed attempt is retried (default 3 attempts, exponential backoff from 1 s, then `dead`). */
  readonly retry?: RetryPolicy;
  /** The queue (default `'default'`). */
  readonly queue?: string;
  /** Lower runs first (default 0). */
  readonly priority?: number;
  /** Bounds one attempt: aborts `ctx.signal`, then fails the attempt. */
  readonly timeout?: Duration;
  /** Bounds one `step.run`: aborts the step's signal, then fails the step. */
  readonly stepTimeout?: Duration;
  /** How long a `step.waitForEvent` parks between polls (default 30 s). */
  readonly eventPoll?: Duration;
  /** A fleet-wide cap: a number, or `{ key, limit, whenBusy }` per key. */
  readonly concurrency?: JobConcurrency<OutputOf<S>>;
  /**
   * Dot paths into the stored input that every operator surface (`inspectJob`, `x jobs show`, the admin page) shows
   * as `'[redacted]'`: `['card.number', 'recipients.*.email']` (`*` is every key or index at that level). The row
   * keeps the value — the body needs it; redaction is what an operator reads. Default: nothing redacted.
   */
  readonly redact?: readonly string[];
  /** Told once per ending, after the settle landed, under the job's tenant. */
  readonly onSettled?: (settled: JobSettled<OutputOf<S>, Awaited<R>>) => void | Promise<void>;
  /** The body. Omit it to bind a DI-aware `@Job(handle)` method instead. */
  readonly run?: (args: RunArgs<OutputOf<S>>) => R | Promise<R>;
}
