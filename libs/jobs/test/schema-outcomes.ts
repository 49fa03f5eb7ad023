import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Schema } from '../src/schema';

/** A lower-case UUID the `t` specs validate. */
export const ID = '0b8f7a6c-5d4e-4f3a-9b2c-1d0e9f8a7b6c';
/** An upper-case UUID the `t` specs validate. */
export const ID2 = 'F47AC10B-58CC-4372-A567-0E02B2C3D479';

/** Runs the synchronous Standard Schema `validate` of a `t` schema. */
export function run<T>(schema: Schema<T>, value: unknown): StandardSchemaV1.Result<T> {
  return schema['~standard'].validate(value);
}

/** The accepted value; fails the test when the schema refused it. */
export function accept<T>(schema: Schema<T>, value: unknown): T {
  const result = run(schema, value);
  if (result.issues) throw new Error(`refused: ${JSON.stringify(result.issues)}`);
  return result.value;
}

/** The issues as `path: message` lines (dotted paths); fails the test when accepted. */
export function refuse(schema: Schema<unknown>, value: unknown): string[] {
  const result = run(schema, value);
  if (!result.issues) throw new Error(`accepted: ${JSON.stringify(result.value)}`);
  return result.issues.map((issue) => {
    const path = (issue.path ?? [])
      .map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i ? '.' : ''}${String(k)}`))
      .join('');
    return `${path}: ${issue.message}`;
  });
}
