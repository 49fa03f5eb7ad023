import type { StandardSchemaV1 } from '@standard-schema/spec';

export type { StandardSchemaV1 };

/** One problem found by a schema, with a dotted path (`items[2].id`). */
export interface SchemaIssue {
  /** Where the problem is, as `a.b[0].c`; `''` for the value itself. */
  readonly path: string;
  /** What is wrong, as the validator put it. */
  readonly message: string;
}

/** The outcome of parsing through any Standard Schema validator. */
export type ParseResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly SchemaIssue[] };

/** Renders a Standard Schema issue path as `a.b[0].c`. */
export function formatIssuePath(path: StandardSchemaV1.Issue['path']): string {
  if (!path) return '';
  let out = '';
  for (const segment of path) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/**
 * Parses `value` through any Standard Schema validator (this package's `t`, zod, valibot, …). One promise for a
 * validator that answers synchronously (most do): a worker parses every run's input through here.
 */
export function parseWith<S extends StandardSchemaV1>(
  schema: S,
  value: unknown,
): Promise<ParseResult<StandardSchemaV1.InferOutput<S>>> {
  try {
    const result = parseNow(schema, value);
    return result instanceof Promise ? result : Promise.resolve(result);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * {@link parseWith} without the promise a synchronous validator does not need: its answer as it is, or a promise of
 * it for a validator that answers a thenable (an async refinement). A validator's throw is thrown. A worker runs a
 * claimed row's body as soon as its input parsed, through here: no promise and no turn of the microtask queue before
 * the body (zod, valibot and this package's `t` all answer synchronously).
 */
export function parseNow<S extends StandardSchemaV1>(
  schema: S,
  value: unknown,
):
  | ParseResult<StandardSchemaV1.InferOutput<S>>
  | Promise<ParseResult<StandardSchemaV1.InferOutput<S>>> {
  type Out = StandardSchemaV1.InferOutput<S>;
  const result = schema['~standard'].validate(value) as
    StandardSchemaV1.Result<Out> | PromiseLike<StandardSchemaV1.Result<Out>>;
  // a thenable answer is awaited as before; a plain one is answered as it is
  return 'then' in result && typeof result.then === 'function'
    ? Promise.resolve(result).then((r) => parsed<Out>(r))
    : parsed<Out>(result as StandardSchemaV1.Result<Out>);
}

/** A validator's answer as a {@link ParseResult}. */
function parsed<T>(result: StandardSchemaV1.Result<T>): ParseResult<T> {
  if (result.issues) {
    return {
      ok: false,
      issues: result.issues.map((i) => ({ path: formatIssuePath(i.path), message: i.message })),
    };
  }
  return { ok: true, value: result.value };
}

/** Whether `value` implements Standard Schema V1. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const std = (value as { '~standard'?: { version?: unknown; validate?: unknown } })['~standard'];
  return (
    typeof std === 'object' &&
    std !== null &&
    std.version === 1 &&
    typeof std.validate === 'function'
  );
}
