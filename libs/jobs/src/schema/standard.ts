import type { StandardSchemaV1 } from '@standard-schema/spec';

export type { StandardSchemaV1 };

/** One problem found by a schema, with a dotted path (`items[2].id`). */
export interface SchemaIssue {
  readonly path: string;
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

/** Parses `value` through any Standard Schema validator (this package's `t`, zod, valibot, …). */
export async function parseWith<S extends StandardSchemaV1>(
  schema: S,
  value: unknown,
): Promise<ParseResult<StandardSchemaV1.InferOutput<S>>> {
  const result = await schema['~standard'].validate(value);
  if (result.issues) {
    return {
      ok: false,
      issues: result.issues.map((i) => ({ path: formatIssuePath(i.path), message: i.message })),
    };
  }
  return { ok: true, value: result.value as StandardSchemaV1.InferOutput<S> };
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
