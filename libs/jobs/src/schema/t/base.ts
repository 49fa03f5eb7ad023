import type { StandardSchemaV1 } from '@standard-schema/spec';

/**
 * The key of the internal check method every `t` schema implements.
 *
 * @internal Not part of the public API: composite schemas (objects, arrays, wrappers) call it on
 * their members so that paths compose and every issue is collected in one pass.
 */
export const CHECK = Symbol('@ultimat3/jobs.t.check');

/**
 * What a check returns when the value was refused (the reasons are in the issue list).
 *
 * @internal
 */
export const INVALID = Symbol('@ultimat3/jobs.t.invalid');

/** The type of {@link INVALID}. @internal */
export type Invalid = typeof INVALID;

/** A location inside the validated value: object keys and array indices, outermost first. */
export type IssuePath = readonly PropertyKey[];

/** One problem a `t` schema found: a plain-language reason and where it is. */
export interface TIssue extends StandardSchemaV1.Issue {
  /** Why the value was refused, e.g. `expected a whole number, got 1.5`. */
  readonly message: string;
  /** Where the refused value is, e.g. `['items', 2, 'id']`; empty for the root value. */
  readonly path: IssuePath;
}

/** Standard Schema V1 properties whose `validate` is synchronous (never returns a promise). */
export interface SyncStandardProps<T> extends StandardSchemaV1.Props<T, T> {
  /** Checks `value`: `{ value }` when accepted, otherwise `{ issues }` listing every problem. */
  readonly validate: (
    value: unknown,
    options?: StandardSchemaV1.Options,
  ) => StandardSchemaV1.Result<T>;
}

/**
 * The base of every `t` schema: a synchronous Standard Schema V1 validator whose input and output
 * are both `T` (there are no transforms).
 *
 * Schemas are immutable: `.optional()`, `.nullable()` and the type-specific modifiers return new
 * schemas and leave the receiver unchanged.
 */
export abstract class Schema<T> implements StandardSchemaV1<T, T> {
  /** The Standard Schema V1 interface (`vendor: 'ultimat3'`); `validate` never returns a promise. */
  readonly '~standard': SyncStandardProps<T>;

  constructor() {
    this['~standard'] = Object.freeze({
      version: 1 as const,
      vendor: 'ultimat3',
      validate: (value: unknown): StandardSchemaV1.Result<T> => this.#validate(value),
    });
  }

  /**
   * Checks `value`, appending every problem to `issues` (paths prefixed with `path`).
   *
   * @returns the output value, or {@link INVALID} exactly when at least one issue was appended.
   * @internal
   */
  abstract [CHECK](value: unknown, path: IssuePath, issues: TIssue[]): T | Invalid;

  /** A schema that also accepts `undefined`; as an object member its key may be left out. */
  optional(): OptionalSchema<T> {
    return new OptionalSchema(this);
  }

  /** A schema that also accepts `null`. */
  nullable(): NullableSchema<T> {
    return new NullableSchema(this);
  }

  #validate(value: unknown): StandardSchemaV1.Result<T> {
    const issues: TIssue[] = [];
    const out = this[CHECK](value, [], issues);
    if (issues.length > 0) return { issues };
    if (out === INVALID) return { issues: [{ message: 'invalid value', path: [] }] };
    return { value: out };
  }
}

/** The output type of any Standard Schema, e.g. `Infer<typeof t.number>` is `number`. */
export type Infer<S extends StandardSchemaV1> = StandardSchemaV1.InferOutput<S>;

/** The input type of any Standard Schema; for `t` schemas it equals {@link Infer}. */
export type InferInput<S extends StandardSchemaV1> = StandardSchemaV1.InferInput<S>;

/** A schema accepting `undefined` as well as what the wrapped schema accepts. */
export class OptionalSchema<T> extends Schema<T | undefined> {
  /** The wrapped schema. */
  readonly inner: Schema<T>;

  /** Prefer `schema.optional()`. */
  constructor(inner: Schema<T>) {
    super();
    this.inner = inner;
    Object.freeze(this);
  }

  /** @internal */
  [CHECK](value: unknown, path: IssuePath, issues: TIssue[]): T | undefined | Invalid {
    return value === undefined ? undefined : this.inner[CHECK](value, path, issues);
  }
}

/** A schema accepting `null` as well as what the wrapped schema accepts. */
export class NullableSchema<T> extends Schema<T | null> {
  /** The wrapped schema. */
  readonly inner: Schema<T>;

  /** Prefer `schema.nullable()`. */
  constructor(inner: Schema<T>) {
    super();
    this.inner = inner;
    Object.freeze(this);
  }

  /** @internal */
  [CHECK](value: unknown, path: IssuePath, issues: TIssue[]): T | null | Invalid {
    return value === null ? null : this.inner[CHECK](value, path, issues);
  }
}
