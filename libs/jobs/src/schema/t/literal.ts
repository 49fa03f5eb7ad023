import { InvariantError } from '../../errors/runtime-errors';
import { CHECK, INVALID, type Invalid, type IssuePath, Schema, type TIssue } from './base';
import { describe, quote } from './describe';

/** A value `t.literal` can require. */
export type LiteralValue = string | number | boolean | null;

/** Accepts exactly one value (compared with `===`); `t.literal(v)`. */
export class LiteralSchema<V extends LiteralValue> extends Schema<V> {
  /** The only value accepted. */
  readonly value: V;

  /** Prefer `t.literal(value)`. */
  constructor(value: V) {
    super();
    const kind = typeof value;
    if (value !== null && kind !== 'string' && kind !== 'number' && kind !== 'boolean') {
      throw new InvariantError(
        't.literal expects a string, number, boolean or null.',
        'Pass one of those; t.object or t.array describe composite values.',
      );
    }
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new InvariantError(
        `t.literal expects a finite number, got ${String(value)}.`,
        'JSON has no NaN or Infinity: pass a finite number.',
      );
    }
    this.value = value;
    Object.freeze(this);
  }

  /** @internal */
  [CHECK](value: unknown, path: IssuePath, issues: TIssue[]): V | Invalid {
    if (value === this.value) return this.value;
    issues.push({ message: `expected ${quote(this.value)}, got ${describe(value)}`, path });
    return INVALID;
  }
}

/** Accepts exactly `value`: `t.literal('v1')` is a schema of the type `'v1'`. */
export function literal<const V extends LiteralValue>(value: V): LiteralSchema<V> {
  return new LiteralSchema(value);
}
