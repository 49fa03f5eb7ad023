import type { StandardSchemaV1 } from '../schema/standard';
import type { Duration } from '../util/duration';
import type { JobConcurrency } from './concurrency';
import type { RetryPolicy } from './retry-policy';
import type { JobSettled, RunArgs } from './run-args';

/** What `job()` takes. `idempotencyKey` and `tenant` are required: every job can be deduped and acts under a tenant. */
export interface JobDefinition<S extends StandardSchemaV1, R> {
  /** The durable queue key. Set it, or let `JobsModule.forFeature` stamp the export name. */
  readonly name?: string;
  /** Any Standard Schema validator: this package's `t`, zod, valibot, … */
  readonly input: S;
  /** Which enqueues are the same job: a live row holding this key dedupes a second enqueue. REQUIRED. */
  readonly idempotencyKey: (input: StandardSchemaV1.InferOutput<S>) => string;
  /** The org the run acts under, or `'none'` for a job that belongs to no tenant. REQUIRED. */
  readonly tenant: ((input: StandardSchemaV1.InferOutput<S>) => string) | 'none';
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
  readonly concurrency?: JobConcurrency<StandardSchemaV1.InferOutput<S>>;
  /** Told once per ending, after the settle landed, under the job's tenant. */
  readonly onSettled?: (
    settled: JobSettled<StandardSchemaV1.InferOutput<S>, Awaited<R>>,
  ) => void | Promise<void>;
  /** The body. Omit it to bind a DI-aware `@Job(handle)` method instead. */
  readonly run?: (args: RunArgs<StandardSchemaV1.InferOutput<S>>) => R | Promise<R>;
}
