import type { StandardSchemaV1 } from '@standard-schema/spec';
import { describe } from '../t/describe';
import { loadDtoPeers, type DtoPeers, type ValidationErrorLike } from './dto-peers';
import type { DtoClass, DtoInput } from './dto-types';

/** Options of {@link dtoSchema}: passed through to the peers unchanged. */
export interface DtoSchemaOptions {
  /**
   * class-validator's `ValidatorOptions` (default: class-validator's own defaults, as Nest's `ValidationPipe` has them —
   * unknown properties are kept; pass `{ whitelist: true }` to strip them, as `t.object` does).
   */
  readonly validator?: Readonly<Record<string, unknown>>;
  /** class-transformer's `ClassTransformOptions`, for both directions (default none). */
  readonly transformer?: Readonly<Record<string, unknown>>;
}

type Issue = StandardSchemaV1.Issue;

/** One issue per failed constraint, nested errors under their property path (array items by index). */
function issuesOf(
  errors: readonly ValidationErrorLike[],
  parent: readonly PropertyKey[],
  parentIsArray: boolean,
  out: Issue[],
): Issue[] {
  for (const error of errors) {
    const key =
      parentIsArray && /^\d+$/.test(error.property) ? Number(error.property) : error.property;
    const path = key === '' || key === undefined ? [...parent] : [...parent, key];
    for (const message of Object.values(error.constraints ?? {})) out.push({ message, path });
    if (error.children !== undefined && error.children.length > 0) {
      issuesOf(error.children, path, Array.isArray(error.value), out);
    }
  }
  return out;
}

/** Dates become ISO strings, as JSON would write them; everything else is copied as it is, for `jsonProblem` to judge. */
function datesToIso(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? value : value.toISOString();
  if (Array.isArray(value)) return value.map(datesToIso);
  if (
    typeof value === 'object' &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype
  ) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = datesToIso(v);
    return out;
  }
  return value;
}

/**
 * A class-validator DTO class as a Standard Schema: `validate` turns a plain object into an instance of the class
 * (`plainToInstance`) and checks it (`validate`), answering the instance, or one issue per failed constraint with its
 * property path (`address.city`, `items[2].id`). `toPlain` is what is stored: the instance as plain JSON.
 *
 * What a run receives is an instance of the class rebuilt from the STORED JSON on every attempt, never the object
 * `enqueue` was given: the stored JSON is the one source, so every attempt and every replay sees the same value, and
 * the class's methods and `@Type()` conversions (a `Date` from its ISO string) apply as they would to a request body.
 */
export class DtoSchema<T extends object> implements StandardSchemaV1<DtoInput<T>, T> {
  /** The DTO class. */
  readonly dto: DtoClass<T>;
  /** The Standard Schema V1 interface (`vendor: 'class-validator'`); `validate` answers a promise. */
  readonly '~standard': StandardSchemaV1.Props<DtoInput<T>, T>;
  readonly #peers: DtoPeers;
  readonly #options: DtoSchemaOptions;

  /** Prefer {@link dtoSchema}. Loads the optional peers now: a missing one is `X_PEER_MISSING` here. */
  constructor(dto: DtoClass<T>, options: DtoSchemaOptions = {}) {
    this.#peers = loadDtoPeers();
    this.dto = dto;
    this.#options = options;
    this['~standard'] = Object.freeze({
      version: 1 as const,
      vendor: 'class-validator',
      validate: (value: unknown) => this.#validate(value),
    });
  }

  /** The instance as the plain JSON that is stored (`instanceToPlain`, Dates as ISO strings). */
  toPlain(instance: T): unknown {
    return datesToIso(this.#peers.instanceToPlain(instance, this.#options.transformer));
  }

  async #validate(value: unknown): Promise<StandardSchemaV1.Result<T>> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { issues: [{ message: `expected an object, got ${describe(value)}`, path: [] }] };
    }
    const { plainToInstance, validate } = this.#peers;
    const instance = plainToInstance(this.dto, value, this.#options.transformer) as T;
    const errors = await validate(instance, this.#options.validator);
    if (errors.length === 0) return { value: instance };
    const issues = issuesOf(errors, [], false, []);
    return { issues: issues.length > 0 ? issues : [{ message: 'invalid value', path: [] }] };
  }
}

/** Whether `value` is a class to use as a DTO input: a constructor that is not itself a Standard Schema. */
export function isDtoClass(value: unknown): value is DtoClass<object> {
  return (
    typeof value === 'function' &&
    typeof (value as { prototype?: unknown }).prototype === 'object' &&
    !('~standard' in value)
  );
}

/**
 * Wraps a class-validator DTO class as a job input schema, with options for the peers. `job({ input: SomeDto })` is
 * the same as `job({ input: dtoSchema(SomeDto) })`. Needs the optional peers `class-validator` and
 * `class-transformer`; without them it is `X_PEER_MISSING`.
 */
export function dtoSchema<T extends object>(
  dto: DtoClass<T>,
  options?: DtoSchemaOptions,
): DtoSchema<T> {
  return new DtoSchema(dto, options);
}
