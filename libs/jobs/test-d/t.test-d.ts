/**
 * Type tests for the `t` schema DSL: compiled by `tsc -p libs/jobs/tsconfig.json`, never run.
 * Each `@ts-expect-error` proves that inference refuses a wrong value.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { t, type Infer, type InferInput } from '../src/schema';

/** Compile-time equality of two types. */
type Equal<A, B> =
  (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
/** Fails to compile unless `T` is `true`. */
function assertType<T extends true>(): T | undefined {
  return undefined;
}

// @ts-expect-error the helper itself tells different types apart
assertType<Equal<string, string | undefined>>();

// Primitives are schema values, not functions.
assertType<Equal<Infer<typeof t.string>, string>>();
assertType<Equal<Infer<typeof t.number>, number>>();
assertType<Equal<Infer<typeof t.boolean>, boolean>>();
assertType<Equal<Infer<typeof t.uuid>, string>>();
assertType<Equal<Infer<ReturnType<typeof t.number.int>>, number>>();
assertType<Equal<Infer<ReturnType<typeof t.string.min>>, string>>();

// Objects: optional members become optional properties.
export const s = t.object({ a: t.string, b: t.number.optional() });
type S = Infer<typeof s>;
assertType<Equal<S, { a: string; b?: number | undefined }>>();
assertType<Equal<InferInput<typeof s>, S>>();
export const ok: S = { a: 'x' };
export const okWithB: S = { a: 'x', b: 1 };
// @ts-expect-error b must be a number
export const badB: S = { a: 'x', b: 'y' };
// @ts-expect-error a is required
export const missingA: S = { b: 1 };

// Nullable gives `T | null`, and the key stays required.
export const n = t.object({ note: t.string.nullable() });
type N = Infer<typeof n>;
assertType<Equal<N, { note: string | null }>>();
export const nullNote: N = { note: null };
// @ts-expect-error note is required (nullable is not optional)
export const noNote: N = {};
// @ts-expect-error note must be a string or null
export const numNote: N = { note: 1 };

// Optional and nullable together.
export const both = t.string.optional().nullable();
assertType<Equal<Infer<typeof both>, string | undefined | null>>();

// Literal.
export const v1 = t.literal('v1');
assertType<Equal<Infer<typeof v1>, 'v1'>>();
export const lit: Infer<typeof v1> = 'v1';
// @ts-expect-error only 'v1' is accepted
export const badLit: Infer<typeof v1> = 'v2';
assertType<Equal<Infer<ReturnType<typeof t.literal<42>>>, 42>>();
assertType<Equal<Infer<ReturnType<typeof t.literal<null>>>, null>>();

// Enum, with and without `as const`.
export const level = t.enum(['low', 'high'] as const);
type Level = Infer<typeof level>;
assertType<Equal<Level, 'low' | 'high'>>();
export const mode = t.enum(['fast', 'safe']);
assertType<Equal<Infer<typeof mode>, 'fast' | 'safe'>>();
export const low: Level = 'low';
// @ts-expect-error 'mid' is not an option
export const mid: Level = 'mid';
// @ts-expect-error an enum needs at least one option
t.enum([]);

// Arrays.
export const ids = t.array(t.uuid).min(1).max(10);
assertType<Equal<Infer<typeof ids>, string[]>>();
// @ts-expect-error items must be strings
export const badIds: Infer<typeof ids> = [1];
export const maybeItems = t.array(t.number.optional());
assertType<Equal<Infer<typeof maybeItems>, (number | undefined)[]>>();

// Nesting.
export const order = t.object({
  orgId: t.uuid,
  items: t.array(t.object({ id: t.uuid, qty: t.number.int().min(1) })),
  user: t.object({ email: t.string, tier: t.enum(['free', 'pro']).optional() }).nullable(),
});
type Order = Infer<typeof order>;
assertType<
  Equal<
    Order,
    {
      orgId: string;
      items: { id: string; qty: number }[];
      user: { email: string; tier?: 'free' | 'pro' | undefined } | null;
    }
  >
>();
// @ts-expect-error qty must be a number
export const badOrder: Order = { orgId: 'x', items: [{ id: 'y', qty: '1' }], user: null };

// Every schema is a Standard Schema V1 validator whose `validate` is synchronous.
export const std: StandardSchemaV1<S, S> = s;
const result = s['~standard'].validate({ a: 'x' });
if (!result.issues) assertType<Equal<typeof result.value, S>>();
// @ts-expect-error validate returns a plain result, not a promise
void result.then;

// Modifiers only exist where they make sense.
// @ts-expect-error t.boolean has no min
void t.boolean.min;
// @ts-expect-error t.string is a schema, not a function
t.string();
