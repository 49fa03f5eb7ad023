import { CHECK, INVALID, type Invalid, type IssuePath, Schema, type TIssue } from './base';
import { describe } from './describe';

/** Accepts `true` and `false` only (no `'true'`, `0` or `1`); `t.boolean`. */
export class BooleanSchema extends Schema<boolean> {
  /** Prefer `t.boolean`. */
  constructor() {
    super();
    Object.freeze(this);
  }

  /** @internal */
  [CHECK](value: unknown, path: IssuePath, issues: TIssue[]): boolean | Invalid {
    if (typeof value === 'boolean') return value;
    issues.push({ message: `expected a boolean, got ${describe(value)}`, path });
    return INVALID;
  }
}

/** Accepts `true` and `false` (`t.boolean`). */
export const boolean: BooleanSchema = new BooleanSchema();
