import { InvariantError } from '../../errors/runtime-errors';
import { assertLengthBound } from './bounds';
import { CHECK, INVALID, type Invalid, type IssuePath, Schema, type TIssue } from './base';
import { describe, plural } from './describe';

/** The length rules an {@link ArraySchema} applies. */
export interface ArrayRules {
  /** The fewest items accepted. */
  readonly min?: number;
  /** The most items accepted. */
  readonly max?: number;
}

/**
 * Accepts arrays whose every item the item schema accepts; `t.array(schema)`, refined with
 * `.min(n)` and `.max(n)`. The output is a new array of the items' outputs; an issue in an item
 * has the item's index in its path (`items[2].id`).
 */
export class ArraySchema<T> extends Schema<T[]> {
  /** The schema each item must satisfy. */
  readonly item: Schema<T>;
  /** The length rules this schema applies (frozen). */
  readonly rules: ArrayRules;

  /** Prefer `t.array(item)`. */
  constructor(item: Schema<T>, rules: ArrayRules = {}) {
    super();
    if (!(item instanceof Schema)) {
      throw new InvariantError(
        't.array expects a t schema for its items.',
        'Pass one, e.g. t.array(t.string).',
      );
    }
    if (rules.min !== undefined && rules.max !== undefined && rules.min > rules.max) {
      throw new InvariantError(
        `t.array: min(${rules.min}) is above max(${rules.max}).`,
        'Make min at most max.',
      );
    }
    this.item = item;
    this.rules = Object.freeze({ ...rules });
    Object.freeze(this);
  }

  /** A schema that also requires at least `length` items. */
  min(length: number): ArraySchema<T> {
    return new ArraySchema(this.item, {
      ...this.rules,
      min: assertLengthBound('t.array.min', length),
    });
  }

  /** A schema that also requires at most `length` items. */
  max(length: number): ArraySchema<T> {
    return new ArraySchema(this.item, {
      ...this.rules,
      max: assertLengthBound('t.array.max', length),
    });
  }

  /** @internal */
  [CHECK](value: unknown, path: IssuePath, issues: TIssue[]): T[] | Invalid {
    if (!Array.isArray(value)) {
      issues.push({ message: `expected an array, got ${describe(value)}`, path });
      return INVALID;
    }
    const before = issues.length;
    const { min, max } = this.rules;
    if (min !== undefined && value.length < min) {
      issues.push({
        message: `expected at least ${plural(min, 'item')}, got ${value.length}`,
        path,
      });
    }
    if (max !== undefined && value.length > max) {
      issues.push({
        message: `expected at most ${plural(max, 'item')}, got ${value.length}`,
        path,
      });
    }
    const out: T[] = [];
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const checked = this.item[CHECK](item, [...path, index], issues);
      if (checked !== INVALID) out.push(checked);
    }
    return issues.length === before ? out : INVALID;
  }
}

/** Accepts arrays of `item`: `t.array(t.uuid)` is a schema of the type `string[]`. */
export function array<T>(item: Schema<T>): ArraySchema<T> {
  return new ArraySchema(item);
}
