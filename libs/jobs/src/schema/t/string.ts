import { InvariantError } from '../../errors/runtime-errors';
import { assertLengthBound } from './bounds';
import { CHECK, INVALID, type Invalid, type IssuePath, Schema, type TIssue } from './base';
import { describe, plural } from './describe';

/** The rules a {@link StringSchema} applies; lengths count UTF-16 code units (`s.length`). */
export interface StringRules {
  /** The fewest characters accepted. */
  readonly min?: number;
  /** The most characters accepted. */
  readonly max?: number;
  /** Patterns the whole value must match, each with the message used when it does not. */
  readonly patterns: readonly { readonly re: RegExp; readonly message: string }[];
}

/** Accepts strings; `t.string`, refined with `.min(n)`, `.max(n)` and `.regex(re)`. */
export class StringSchema extends Schema<string> {
  /** The rules this schema applies (frozen). */
  readonly rules: StringRules;

  /** Prefer `t.string`. */
  constructor(rules: StringRules = { patterns: [] }) {
    super();
    if (rules.min !== undefined && rules.max !== undefined && rules.min > rules.max) {
      throw new InvariantError(
        `t.string: min(${rules.min}) is above max(${rules.max}).`,
        'Make min at most max.',
      );
    }
    this.rules = Object.freeze({ ...rules, patterns: Object.freeze([...rules.patterns]) });
    Object.freeze(this);
  }

  /** A schema that also requires at least `length` characters. */
  min(length: number): StringSchema {
    return new StringSchema({ ...this.rules, min: assertLengthBound('t.string.min', length) });
  }

  /** A schema that also requires at most `length` characters. */
  max(length: number): StringSchema {
    return new StringSchema({ ...this.rules, max: assertLengthBound('t.string.max', length) });
  }

  /**
   * A schema that also requires the value to match `re` (in addition to earlier patterns).
   * The `g` and `y` flags are dropped so matching never depends on `lastIndex`.
   *
   * @param message the issue message when the value does not match; by default
   *   `expected a string matching /…/`.
   */
  regex(re: RegExp, message?: string): StringSchema {
    if (!(re instanceof RegExp)) {
      throw new InvariantError(
        't.string.regex expects a RegExp.',
        'Pass a RegExp, e.g. /^[a-z]+$/.',
      );
    }
    const stable = new RegExp(re.source, re.flags.replace(/[gy]/g, ''));
    const entry = {
      re: stable,
      message: message ?? `expected a string matching ${String(stable)}`,
    };
    return new StringSchema({ ...this.rules, patterns: [...this.rules.patterns, entry] });
  }

  /** @internal */
  [CHECK](value: unknown, path: IssuePath, issues: TIssue[]): string | Invalid {
    if (typeof value !== 'string') {
      issues.push({ message: `expected a string, got ${describe(value)}`, path });
      return INVALID;
    }
    const before = issues.length;
    const { min, max, patterns } = this.rules;
    if (min !== undefined && value.length < min) {
      issues.push({
        message: `expected at least ${plural(min, 'character')}, got ${value.length}`,
        path,
      });
    }
    if (max !== undefined && value.length > max) {
      issues.push({
        message: `expected at most ${plural(max, 'character')}, got ${value.length}`,
        path,
      });
    }
    for (const { re, message } of patterns) {
      if (!re.test(value)) issues.push({ message, path });
    }
    return issues.length === before ? value : INVALID;
  }
}

/** Accepts any string (`t.string`). */
export const string: StringSchema = new StringSchema();
