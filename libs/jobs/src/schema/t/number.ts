import { InvariantError } from '../../errors/runtime-errors';
import { assertFiniteBound } from './bounds';
import { CHECK, INVALID, type Invalid, type IssuePath, Schema, type TIssue } from './base';
import { describe } from './describe';

/** The rules a {@link NumberSchema} applies. */
export interface NumberRules {
  /** Whether only whole numbers are accepted. */
  readonly int: boolean;
  /** The smallest value accepted (inclusive). */
  readonly min?: number;
  /** The largest value accepted (inclusive). */
  readonly max?: number;
}

/**
 * Accepts finite numbers (never `NaN` or `±Infinity`); `t.number`, refined with `.int()`,
 * `.min(n)` and `.max(n)`.
 */
export class NumberSchema extends Schema<number> {
  /** The rules this schema applies (frozen). */
  readonly rules: NumberRules;

  /** Prefer `t.number`. */
  constructor(rules: NumberRules = { int: false }) {
    super();
    if (rules.min !== undefined && rules.max !== undefined && rules.min > rules.max) {
      throw new InvariantError(
        `t.number: min(${rules.min}) is above max(${rules.max}).`,
        'Make min at most max.',
      );
    }
    this.rules = Object.freeze({ ...rules });
    Object.freeze(this);
  }

  /** A schema that also requires a whole number. */
  int(): NumberSchema {
    return new NumberSchema({ ...this.rules, int: true });
  }

  /** A schema that also requires a value `>= bound`. */
  min(bound: number): NumberSchema {
    return new NumberSchema({ ...this.rules, min: assertFiniteBound('t.number.min', bound) });
  }

  /** A schema that also requires a value `<= bound`. */
  max(bound: number): NumberSchema {
    return new NumberSchema({ ...this.rules, max: assertFiniteBound('t.number.max', bound) });
  }

  /** @internal */
  [CHECK](value: unknown, path: IssuePath, issues: TIssue[]): number | Invalid {
    if (typeof value !== 'number') {
      issues.push({ message: `expected a number, got ${describe(value)}`, path });
      return INVALID;
    }
    if (!Number.isFinite(value)) {
      issues.push({ message: `expected a finite number, got ${describe(value)}`, path });
      return INVALID;
    }
    const before = issues.length;
    const { int, min, max } = this.rules;
    if (int && !Number.isInteger(value)) {
      issues.push({ message: `expected a whole number, got ${describe(value)}`, path });
    }
    if (min !== undefined && value < min) {
      issues.push({ message: `expected a number >= ${min}, got ${describe(value)}`, path });
    }
    if (max !== undefined && value > max) {
      issues.push({ message: `expected a number <= ${max}, got ${describe(value)}`, path });
    }
    return issues.length === before ? value : INVALID;
  }
}

/** Accepts any finite number (`t.number`). */
export const number: NumberSchema = new NumberSchema();
