import { InvariantError } from '../../errors/runtime-errors';
import { CHECK, INVALID, type Invalid, type IssuePath, Schema, type TIssue } from './base';
import { describe, quote } from './describe';

/** The non-empty list of strings `t.enum` accepts. */
export type EnumValues = readonly [string, ...string[]];

/** Accepts one string out of a fixed list; `t.enum(['a', 'b'])`. */
export class EnumSchema<V extends EnumValues> extends Schema<V[number]> {
  /** The accepted strings, in declaration order (frozen). */
  readonly options: V;
  readonly #set: ReadonlySet<string>;

  /** Prefer `t.enum(values)`. */
  constructor(options: V) {
    super();
    if (!Array.isArray(options) || options.length === 0) {
      throw new InvariantError(
        't.enum expects a non-empty array of strings.',
        "Pass the allowed values, e.g. t.enum(['draft', 'sent']).",
      );
    }
    for (const option of options) {
      if (typeof option !== 'string') {
        throw new InvariantError(
          `t.enum expects strings, got ${describe(option)}.`,
          'Pass strings only; t.literal takes a number or boolean.',
        );
      }
    }
    this.options = Object.freeze([...options]) as unknown as V;
    this.#set = new Set(options);
    Object.freeze(this);
  }

  /** @internal */
  [CHECK](value: unknown, path: IssuePath, issues: TIssue[]): V[number] | Invalid {
    if (typeof value === 'string' && this.#set.has(value)) return value;
    const expected = this.options.map((option) => quote(option)).join(' | ');
    issues.push({ message: `expected one of ${expected}, got ${describe(value)}`, path });
    return INVALID;
  }
}

/**
 * Accepts one of `values`: `t.enum(['low', 'high'])` is a schema of the type `'low' | 'high'`
 * (`as const` is optional).
 */
export function enumOf<const V extends EnumValues>(values: V): EnumSchema<V> {
  return new EnumSchema(values);
}
