import { InvariantError } from '../errors/runtime-errors';
import { t } from './index';
import { accept, ID, ID2, refuse } from '../../test/schema-outcomes';

describe('t.string', () => {
  it('accepts strings and refuses everything else', () => {
    expect(accept(t.string, '')).toBe('');
    expect(accept(t.string, 'hello')).toBe('hello');
    expect(refuse(t.string, 1)).toEqual([': expected a string, got 1']);
    expect(refuse(t.string, null)).toEqual([': expected a string, got null']);
    expect(refuse(t.string, undefined)).toEqual([': expected a string, got undefined']);
    expect(refuse(t.string, {})).toEqual([': expected a string, got an object']);
  });

  it('applies min, max and regex, reporting every failed rule', () => {
    const code = t.string
      .min(3)
      .max(5)
      .regex(/^[a-z]+$/);
    expect(accept(code, 'abcd')).toBe('abcd');
    // both bounds are inclusive
    expect(accept(code, 'abc')).toBe('abc');
    expect(accept(code, 'abcde')).toBe('abcde');
    expect(refuse(code, 'ab')).toEqual([': expected at least 3 characters, got 2']);
    expect(refuse(code, 'abcdef')).toEqual([': expected at most 5 characters, got 6']);
    expect(refuse(code, 'A1')).toEqual([
      ': expected at least 3 characters, got 2',
      ': expected a string matching /^[a-z]+$/',
    ]);
    expect(refuse(t.string.min(1), '')).toEqual([': expected at least 1 character, got 0']);
  });

  it('uses a custom regex message and ignores the global flag state', () => {
    const digits = t.string.regex(/^\d+$/g, 'expected digits only');
    expect(accept(digits, '12')).toBe('12');
    expect(accept(digits, '12')).toBe('12');
    expect(refuse(digits, '1a')).toEqual([': expected digits only']);
  });

  it('is immutable: modifiers return new schemas', () => {
    const short = t.string.max(2);
    expect(short).not.toBe(t.string);
    expect(accept(t.string, 'long enough')).toBe('long enough');
    expect(Object.isFrozen(t.string)).toBe(true);
    expect(Object.isFrozen(short.rules)).toBe(true);
  });

  it('refuses bad bounds when declared', () => {
    expect(() => t.string.min(-1)).toThrow(InvariantError);
    expect(() => t.string.max(1.5)).toThrow(InvariantError);
    expect(() => t.string.min(5).max(2)).toThrow('min(5) is above max(2)');
  });
});

describe('t.number', () => {
  it('accepts finite numbers', () => {
    expect(accept(t.number, 0)).toBe(0);
    expect(accept(t.number, -1.5)).toBe(-1.5);
  });

  it('refuses NaN, ±Infinity and non-numbers', () => {
    expect(refuse(t.number, NaN)).toEqual([': expected a finite number, got NaN']);
    expect(refuse(t.number, Infinity)).toEqual([': expected a finite number, got Infinity']);
    expect(refuse(t.number, -Infinity)).toEqual([': expected a finite number, got -Infinity']);
    expect(refuse(t.number, '1')).toEqual([": expected a number, got '1'"]);
    expect(refuse(t.number, 1n)).toEqual([': expected a number, got 1n']);
  });

  it('applies int, min and max, reporting every failed rule', () => {
    const qty = t.number.int().min(2).max(10);
    expect(accept(qty, 2)).toBe(2);
    expect(accept(qty, 10)).toBe(10);
    expect(refuse(t.number.int(), 1.5)).toEqual([': expected a whole number, got 1.5']);
    expect(refuse(qty, 1.5)).toEqual([
      ': expected a whole number, got 1.5',
      ': expected a number >= 2, got 1.5',
    ]);
    expect(refuse(qty, 11)).toEqual([': expected a number <= 10, got 11']);
    expect(accept(t.number.min(0.5), 0.5)).toBe(0.5);
  });

  it('refuses bad bounds when declared', () => {
    expect(() => t.number.min(NaN)).toThrow(InvariantError);
    expect(() => t.number.max(Infinity)).toThrow(InvariantError);
    expect(() => t.number.min(3).max(1)).toThrow(InvariantError);
  });
});

describe('t.boolean', () => {
  it('accepts only true and false', () => {
    expect(accept(t.boolean, true)).toBe(true);
    expect(accept(t.boolean, false)).toBe(false);
    expect(refuse(t.boolean, 'true')).toEqual([": expected a boolean, got 'true'"]);
    expect(refuse(t.boolean, 0)).toEqual([': expected a boolean, got 0']);
  });
});

describe('t.uuid', () => {
  it('accepts canonical UUIDs of any version, either case', () => {
    expect(accept(t.uuid, ID)).toBe(ID);
    expect(accept(t.uuid, ID2)).toBe(ID2);
    expect(accept(t.uuid, '00000000-0000-0000-0000-000000000000')).toBe(
      '00000000-0000-0000-0000-000000000000',
    );
    expect(accept(t.uuid, '01890a5d-ac96-774b-bcce-b302099a8057')).toBeDefined();
  });

  it('refuses anything else', () => {
    for (const bad of [
      'not-a-uuid',
      ID.replace(/-/g, ''),
      `{${ID}}`,
      `${ID} `,
      ID.slice(0, -1) + 'g',
      `urn:uuid:${ID}`,
    ]) {
      expect(refuse(t.uuid, bad)[0]).toMatch(/^: expected a UUID, got '/);
    }
    expect(refuse(t.uuid, 42)).toEqual([': expected a UUID, got 42']);
  });
});

describe('t.literal', () => {
  it('accepts exactly its value', () => {
    expect(accept(t.literal('v1'), 'v1')).toBe('v1');
    expect(accept(t.literal(3), 3)).toBe(3);
    expect(accept(t.literal(false), false)).toBe(false);
    expect(accept(t.literal(null), null)).toBeNull();
    expect(refuse(t.literal('v1'), 'v2')).toEqual([": expected 'v1', got 'v2'"]);
    expect(refuse(t.literal(3), '3')).toEqual([": expected 3, got '3'"]);
  });

  it('refuses values it cannot compare', () => {
    expect(() => t.literal(NaN)).toThrow(InvariantError);
    expect(() => t.literal({} as unknown as string)).toThrow(InvariantError);
  });
});

describe('t.enum', () => {
  it('accepts one of its options', () => {
    const level = t.enum(['a', 'b'] as const);
    expect(accept(level, 'a')).toBe('a');
    expect(level.options).toEqual(['a', 'b']);
    expect(refuse(level, 'c')).toEqual([": expected one of 'a' | 'b', got 'c'"]);
    expect(refuse(level, 1)).toEqual([": expected one of 'a' | 'b', got 1"]);
  });

  it('does not accept inherited names', () => {
    expect(refuse(t.enum(['a']), 'constructor')).toHaveLength(1);
  });

  it('refuses an empty or non-string option list', () => {
    expect(() => t.enum([] as unknown as ['a'])).toThrow(InvariantError);
    expect(() => t.enum([1] as unknown as ['a'])).toThrow(InvariantError);
  });
});
