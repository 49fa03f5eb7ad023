import { array } from './array';
import { boolean } from './boolean';
import { enumOf } from './enum';
import { literal } from './literal';
import { number } from './number';
import { object } from './object';
import { string } from './string';
import { uuid } from './uuid';

export { Schema, OptionalSchema, NullableSchema } from './base';
export type { Infer, InferInput, IssuePath, SyncStandardProps, TIssue } from './base';
export { StringSchema, type StringRules } from './string';
export { NumberSchema, type NumberRules } from './number';
export { BooleanSchema } from './boolean';
export { UuidSchema } from './uuid';
export { LiteralSchema, type LiteralValue } from './literal';
export { EnumSchema, type EnumValues } from './enum';
export { ArraySchema, type ArrayRules } from './array';
export { ObjectSchema, type ObjectShape, type ObjectOutput } from './object';

/**
 * The schema DSL: small synchronous Standard Schema V1 validators with static type inference.
 *
 * ```ts
 * const input = t.object({
 *   orgId: t.uuid,
 *   count: t.number.int().min(1),
 *   tags: t.array(t.string.max(32)).max(10).optional(),
 *   mode: t.enum(['fast', 'safe']),
 * });
 * type Input = Infer<typeof input>;
 * ```
 *
 * `t.string`, `t.number`, `t.boolean` and `t.uuid` are schemas (not functions); every schema has
 * `.optional()` and `.nullable()`, and every modifier returns a new schema.
 */
export const t = Object.freeze({
  /** Accepts any string; refine with `.min(n)`, `.max(n)`, `.regex(re)`. */
  string,
  /** Accepts any finite number; refine with `.int()`, `.min(n)`, `.max(n)`. */
  number,
  /** Accepts `true` and `false`. */
  boolean,
  /** Accepts a canonical UUID string, any version. */
  uuid,
  /** Accepts exactly one string, number, boolean or `null`. */
  literal,
  /** Accepts one string out of a fixed, non-empty list. */
  enum: enumOf,
  /** Accepts arrays of one item schema; refine with `.min(n)`, `.max(n)`. */
  array,
  /** Accepts objects with the given members; unknown keys are dropped. */
  object,
});
