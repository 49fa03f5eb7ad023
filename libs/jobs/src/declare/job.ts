import { DeclaredName } from './declared-name';
import type { EnqueueResult } from '../driver/job-driver';
import {
  IdempotencyRequiredError,
  JobDeclarationInvalidError,
  JobTenantRequiredError,
} from '../errors/declaration-errors';
import { DtoSchema, isDtoClass } from '../schema/dto/dto-schema';
import { Schema } from '../schema/t/base';
import {
  isStandardSchema,
  parseNow,
  parseWith,
  type ParseResult,
  type StandardSchemaV1,
} from '../schema/standard';
import { assertConcurrencyKey, resolveConcurrency, type ResolvedConcurrency } from './concurrency';
import type { JobDescriptor } from './descriptor';
import { enqueueJob, enqueueJobs } from './enqueue';
import { NO_OPTIONS } from './enqueue-options';
import { otelApi } from '../tracing/otel';
import type { AnyJobHandle, EnqueueActor, EnqueueOptions, JobHandle } from './handle';
import type { InputOf, JobDefinition, JobInputSchema, OutputOf } from './job-definition';
import { assertName, MAX_JOB_NAME_LENGTH, MAX_QUEUE_NAME_LENGTH } from './names';
import type { ResolvedRetryPolicy } from './retry-policy';
import type { JobSettled, RunArgs } from './run-args';
import { resolveRedaction } from './redaction';
import { declaredPriority, positiveDuration, resolveRetry } from './validate';
import { MAX_IDEMPOTENCY_KEY_LENGTH, MAX_TENANT_LENGTH } from '../values/bounds';
import { identifierProblem } from '../values/text';

/** How long a `step.waitForEvent` parks between polls when the job declares no `eventPoll`. */
export const DEFAULT_EVENT_POLL_MS = 30_000;
/** The queue of a job that names none. */
export const DEFAULT_QUEUE = 'default';

const HANDLE = Symbol.for('@ultimat3/jobs.handle');

/** Whether `value` is a handle `job()` returned (a look-alike object is not). */
export function isJobHandle(value: unknown): value is JobHandleImpl<unknown, unknown, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { [HANDLE]?: unknown })[HANDLE] === true
  );
}

class JobHandleImpl<In, Out, R> implements JobHandle<In, Out, R> {
  readonly [HANDLE] = true;
  readonly kind = 'job' as const;
  readonly explicitName: boolean;
  readonly queue: string;
  readonly retry: ResolvedRetryPolicy;
  readonly priority: number;
  readonly timeoutMs: number | undefined;
  readonly stepTimeoutMs: number | undefined;
  readonly eventPollMs: number;
  readonly concurrency: ResolvedConcurrency | null;
  readonly tenantMode: 'input' | 'none';
  readonly inline: boolean;
  readonly hasOnSettled: boolean;
  readonly storesAsParsed: boolean;
  readonly #redact: readonly string[];
  readonly #name: DeclaredName;
  readonly #def: JobDefinition<StandardSchemaV1<In, Out>, R>;
  /** The declared schema, or the adapter over a declared DTO class. */
  readonly #schema: StandardSchemaV1<In, Out>;

  constructor(def: JobDefinition<StandardSchemaV1<In, Out>, R>) {
    const explicit = def.name !== undefined;
    const label = explicit ? String(def.name) : 'anonymous';
    if (explicit) assertName(label, 'name', def.name, MAX_JOB_NAME_LENGTH);
    this.#schema = inputSchemaOf(label, def.input);
    // a t schema has no transforms: its output stores as it is and parses back to itself
    this.storesAsParsed = this.#schema instanceof Schema;
    if (typeof def.idempotencyKey !== 'function') throw new IdempotencyRequiredError(label);
    if (def.tenant !== 'none' && typeof def.tenant !== 'function') {
      throw new JobTenantRequiredError(
        label,
        def.tenant === undefined
          ? 'declares no tenant'
          : "declares a tenant that is neither a function nor 'none'",
      );
    }
    if (def.run !== undefined && typeof def.run !== 'function') {
      throw new JobDeclarationInvalidError(label, 'run', 'must be a function');
    }
    if (def.onSettled !== undefined && typeof def.onSettled !== 'function') {
      throw new JobDeclarationInvalidError(label, 'onSettled', 'must be a function');
    }
    this.queue = assertName(label, 'queue', def.queue ?? DEFAULT_QUEUE, MAX_QUEUE_NAME_LENGTH);
    this.retry = resolveRetry(label, def.retry);
    this.priority = def.priority === undefined ? 0 : declaredPriority(label, def.priority);
    this.timeoutMs = positiveDuration(label, 'timeout', def.timeout);
    this.stepTimeoutMs = positiveDuration(label, 'stepTimeout', def.stepTimeout);
    this.eventPollMs = positiveDuration(label, 'eventPoll', def.eventPoll) ?? DEFAULT_EVENT_POLL_MS;
    this.concurrency = resolveConcurrency(label, def.concurrency);
    this.#redact = resolveRedaction(label, def.redact);
    this.tenantMode = def.tenant === 'none' ? 'none' : 'input';
    this.inline = def.run !== undefined;
    this.hasOnSettled = def.onSettled !== undefined;
    this.explicitName = explicit;
    this.#def = def;
    this.#name = new DeclaredName('job', this, explicit ? String(def.name) : undefined);
  }

  get name(): string {
    return this.#name.value;
  }

  /**
   * Moves an unnamed declaration onto its export name. Internal: `JobsModule.forFeature` calls it. An explicit name is
   * never moved; a second, different export name is `X_JOB_DUPLICATE` (the alias would move the queue key).
   */
  stampExportName(exportName: string): void {
    this.#name.stamp(exportName);
  }

  enqueue(input: In, options?: EnqueueOptions): Promise<EnqueueResult> {
    return enqueueJob(this, input, options ?? NO_OPTIONS, undefined);
  }

  as(actor: EnqueueActor, input: In, options?: EnqueueOptions): Promise<EnqueueResult> {
    return enqueueJob(this, input, options ?? NO_OPTIONS, actor);
  }

  enqueueMany(inputs: readonly In[], options?: EnqueueOptions): Promise<EnqueueResult[]> {
    return enqueueJobs(this, inputs, options ?? NO_OPTIONS, undefined);
  }

  describe(): JobDescriptor {
    return {
      kind: 'job',
      name: this.#name.value,
      queue: this.queue,
      tenant: this.tenantMode,
      retry: { ...this.retry },
      timeoutMs: this.timeoutMs ?? null,
      stepTimeoutMs: this.stepTimeoutMs ?? null,
      eventPollMs: this.eventPollMs,
      priority: this.priority,
      concurrency: this.concurrency ? { ...this.concurrency } : null,
      inputVendor: this.#schema['~standard'].vendor,
      redact: [...this.#redact],
      inline: this.inline,
    };
  }

  parseInput(raw: unknown): Promise<ParseResult<Out>> {
    return parseWith(this.#schema, raw);
  }

  parseInputNow(raw: unknown): ParseResult<Out> | Promise<ParseResult<Out>> {
    return parseNow(this.#schema, raw);
  }

  storedInput(input: Out): unknown {
    const schema: unknown = this.#schema;
    return schema instanceof DtoSchema ? schema.toPlain(input as object) : input;
  }

  tenantOf(input: Out): string | null {
    const tenant = this.#def.tenant;
    if (tenant === 'none') return null;
    const org: unknown = tenant(input);
    if (typeof org !== 'string' || org.length === 0) {
      throw new JobTenantRequiredError(
        this.#name.value,
        `answered no tenant for this input (got ${typeof org === 'string' ? "''" : typeof org})`,
      );
    }
    // two tenants differing only in a lone surrogate would be stored as one: one tenant's job in another's
    const problem = identifierProblem(org, MAX_TENANT_LENGTH);
    if (problem !== undefined) {
      throw new JobDeclarationInvalidError(
        this.#name.value,
        'tenant(input)',
        `answered a tenant that ${problem}`,
      );
    }
    return org;
  }

  idempotencyKeyOf(input: Out): string {
    const key: unknown = this.#def.idempotencyKey(input);
    // keys differing only in a lone surrogate would be stored as one: the second enqueue deduped into the first
    const problem = identifierProblem(key, MAX_IDEMPOTENCY_KEY_LENGTH);
    if (problem !== undefined) {
      throw new JobDeclarationInvalidError(
        this.#name.value,
        'idempotencyKey(input)',
        `must answer a non-empty string of at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, with no NUL and no lone surrogate: the key ${problem}`,
      );
    }
    return key as string;
  }

  concurrencyKeyOf(input: Out): string | null {
    const c = this.#def.concurrency;
    if (c === undefined || typeof c === 'number') return null;
    return assertConcurrencyKey(this.#name.value, c.key(input));
  }

  runInline(args: RunArgs<Out>): R | Promise<R> | undefined {
    return this.#def.run?.(args);
  }

  async notifySettled(settled: JobSettled<Out, R>): Promise<void> {
    const hook = this.#def.onSettled as
      ((s: JobSettled<Out, R>) => void | Promise<void>) | undefined;
    if (hook !== undefined) await hook(settled);
  }
}

/**
 * Declares a job and returns its typed handle. Every field is checked here: a bad declaration fails the build, not
 * the fourth attempt.
 */
export function job<S extends JobInputSchema, R = unknown>(
  definition: JobDefinition<S, R>,
): JobHandle<InputOf<S>, OutputOf<S>, Awaited<R>> {
  if (typeof definition !== 'object' || definition === null) {
    throw new JobDeclarationInvalidError('anonymous', 'definition', 'must be an object');
  }
  // the optional tracing peer, loaded now as the app starts: its first use (the first enqueue or run) reads the
  // traceparent, and requiring @opentelemetry/api's ~100 modules then cost that call ~20 ms of its ~30
  otelApi();
  return new JobHandleImpl(
    definition as unknown as JobDefinition<StandardSchemaV1<InputOf<S>, OutputOf<S>>, Awaited<R>>,
  );
}

/**
 * The schema `input:` declares: a Standard Schema as it is, a DTO class through {@link DtoSchema} (loading its optional
 * peers now, so a missing one is `X_PEER_MISSING` at the declaration), anything else `X_JOB_DECLARATION_INVALID`.
 */
function inputSchemaOf<In, Out>(label: string, input: unknown): StandardSchemaV1<In, Out> {
  if (isStandardSchema(input)) return input as StandardSchemaV1<In, Out>;
  if (isDtoClass(input)) return new DtoSchema(input) as unknown as StandardSchemaV1<In, Out>;
  throw new JobDeclarationInvalidError(
    label,
    'input',
    'must be a Standard Schema validator (t.object(…), zod, valibot) or a class-validator DTO class',
  );
}

/**
 * Stamps each export name of a module namespace onto the unnamed job handles it exports, and answers those handles.
 * Internal to registration (`JobsModule.forFeature`): there is one way to register.
 */
export function stampExportNames(namespace: Readonly<Record<string, unknown>>): AnyJobHandle[] {
  const handles: AnyJobHandle[] = [];
  for (const [exportName, value] of Object.entries(namespace)) {
    if (!isJobHandle(value)) continue;
    value.stampExportName(exportName);
    if (!handles.includes(value as unknown as AnyJobHandle))
      handles.push(value as unknown as AnyJobHandle);
  }
  return handles;
}
