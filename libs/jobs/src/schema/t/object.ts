import { InvariantError } from '../../errors/runtime-errors';
import { CHECK, INVALID, type Invalid, type IssuePath, Schema, type TIssue } from './base';
import { describe } from './describe';

/** The members of a `t.object`: each key's schema. */
export type ObjectShape = { readonly [key: string]: Schema<unknown> };

/** The output type of one schema of a shape. */
type OutputOf<S> = S extends Schema<infer T> ? T : never;

/** The keys whose schema accepts `undefined` (declared with `.optional()`). */
type OptionalKeys<S extends ObjectShape> = {
  [K in keyof S]: undefined extends OutputOf<S[K]> ? K : never;
}[keyof S];

/** Flattens an intersection into one object type so editors show `{ a: string; b?: number }`. */
type Flatten<T> = { [K in keyof T]: T[K] } & {};

/**
 * The output type of `t.object(shape)`: members whose schema accepts `undefined` become optional
 * properties (`{ a?: string }`), the others are required.
 */
export type ObjectOutput<S extends ObjectShape> = Flatten<
  { [K in Exclude<keyof S, OptionalKeys<S>>]: OutputOf<S[K]> } & {
    [K in OptionalKeys<S>]?: OutputOf<S[K]>;
  }
>;

/**
 * Accepts objects (not arrays or `null`) whose members the shape's schemas accept; `t.object`.
 *
 * Keys the shape does not name are dropped from the output (strip). A missing key whose schema
 * refuses `undefined` is the issue `required`; a missing optional key stays missing in the output.
 * Only own properties are read, so nothing is picked up from the prototype chain.
 */
export class ObjectSchema<S extends ObjectShape> extends Schema<ObjectOutput<S>> {
  /** The members' schemas (frozen). */
  readonly shape: S;

  /** The shape's entries, read once: a parse walks them without allocating them again. */
  readonly #members: readonly (readonly [string, Schema<unknown>])[];

  /** Each member's path when the object is the root value (`[key]`, frozen): shared by every parse. */
  readonly #topPaths: readonly IssuePath[];

  /** No member is named `__proto__`: an output member may be set by plain assignment. */
  readonly #plainKeys: boolean;

  /** Prefer `t.object(shape)`. */
  constructor(shape: S) {
    super();
    if (typeof shape !== 'object' || shape === null || Array.isArray(shape)) {
      throw new InvariantError(
        't.object expects an object of t schemas.',
        'Pass one, e.g. t.object({ id: t.uuid }).',
      );
    }
    for (const key of Object.keys(shape)) {
      if (!(shape[key] instanceof Schema)) {
        throw new InvariantError(
          `t.object: member '${key}' is not a t schema.`,
          `Declare '${key}' with a t schema (t.string, t.number, …).`,
        );
      }
    }
    this.shape = Object.freeze({ ...shape });
    this.#members = Object.freeze(Object.entries(this.shape));
    this.#topPaths = Object.freeze(this.#members.map(([key]) => Object.freeze([key])));
    this.#plainKeys = this.#members.every(([key]) => key !== '__proto__');
    Object.freeze(this);
  }

  /** @internal */
  [CHECK](value: unknown, path: IssuePath, issues: TIssue[]): ObjectOutput<S> | Invalid {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      issues.push({ message: `expected an object, got ${describe(value)}`, path });
      return INVALID;
    }
    const before = issues.length;
    const out: Record<string, unknown> = {};
    for (let m = 0; m < this.#members.length; m++) {
      const [key, member] = this.#members[m] as readonly [string, Schema<unknown>];
      const memberPath = path.length === 0 ? (this.#topPaths[m] as IssuePath) : [...path, key];
      if (!Object.prototype.hasOwnProperty.call(value, key)) {
        const scratch: TIssue[] = [];
        if (member[CHECK](undefined, memberPath, scratch) === INVALID || scratch.length > 0) {
          issues.push({ message: 'required', path: memberPath });
        }
        continue;
      }
      const raw: unknown = (value as Record<string, unknown>)[key];
      const checked = member[CHECK](raw, memberPath, issues);
      if (checked === INVALID) continue;
      if (this.#plainKeys) {
        out[key] = checked;
      } else {
        // '__proto__' assigned would set the prototype: define it as an own member instead
        Object.defineProperty(out, key, {
          value: checked,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    return issues.length === before ? (out as ObjectOutput<S>) : INVALID;
  }
}

/**
 * Accepts objects with the given members:
 * `t.object({ orgId: t.uuid, note: t.string.optional() })` is a schema of the type
 * `{ orgId: string; note?: string }`.
 */
export function object<S extends ObjectShape>(shape: S): ObjectSchema<S> {
  return new ObjectSchema(shape);
}
