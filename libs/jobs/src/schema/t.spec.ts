import type { StandardSchemaV1 } from '@standard-schema/spec';
import { isStandardSchema, parseWith } from './standard';
import { type Infer, Schema, t } from './index';

const ID = '0b8f7a6c-5d4e-4f3a-9b2c-1d0e9f8a7b6c';
const ID2 = 'F47AC10B-58CC-4372-A567-0E02B2C3D479';

/** Runs the synchronous Standard Schema `validate` of a `t` schema. */
function run<T>(schema: Schema<T>, value: unknown): StandardSchemaV1.Result<T> {
  return schema['~standard'].validate(value);
}

/** The accepted value; fails the test when the schema refused it. */
function accept<T>(schema: Schema<T>, value: unknown): T {
  const result = run(schema, value);
  if (result.issues) throw new Error(`refused: ${JSON.stringify(result.issues)}`);
  return result.value;
}

/** The issues as `path: message` lines (dotted paths); fails the test when accepted. */
function refuse(schema: Schema<unknown>, value: unknown): string[] {
  const result = run(schema, value);
  if (!result.issues) throw new Error(`accepted: ${JSON.stringify(result.value)}`);
  return result.issues.map((issue) => {
    const path = (issue.path ?? [])
      .map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i ? '.' : ''}${String(k)}`))
      .join('');
    return `${path}: ${issue.message}`;
  });
}

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
    expect(() => t.string.min(-1)).toThrow(RangeError);
    expect(() => t.string.max(1.5)).toThrow(RangeError);
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
    expect(() => t.number.min(NaN)).toThrow(RangeError);
    expect(() => t.number.max(Infinity)).toThrow(RangeError);
    expect(() => t.number.min(3).max(1)).toThrow(RangeError);
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
    expect(() => t.literal(NaN)).toThrow(RangeError);
    expect(() => t.literal({} as unknown as string)).toThrow(TypeError);
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
    expect(() => t.enum([] as unknown as ['a'])).toThrow(TypeError);
    expect(() => t.enum([1] as unknown as ['a'])).toThrow(TypeError);
  });
});

describe('t.array', () => {
  it('accepts arrays of accepted items and returns a new array', () => {
    const input = [1, 2];
    const out = accept(t.array(t.number), input);
    expect(out).toEqual([1, 2]);
    expect(out).not.toBe(input);
    expect(accept(t.array(t.string), [])).toEqual([]);
  });

  it('refuses non-arrays', () => {
    expect(refuse(t.array(t.number), { 0: 1, length: 1 })).toEqual([
      ': expected an array, got an object',
    ]);
  });

  it('names the index of every bad item', () => {
    expect(refuse(t.array(t.number.int()), [1, 'x', 2.5])).toEqual([
      "[1]: expected a number, got 'x'",
      '[2]: expected a whole number, got 2.5',
    ]);
  });

  it('applies min and max together with item checks', () => {
    const some = t.array(t.uuid).min(1).max(2);
    expect(refuse(some, [])).toEqual([': expected at least 1 item, got 0']);
    expect(refuse(some, [ID, ID, 'x'])).toEqual([
      ': expected at most 2 items, got 3',
      "[2]: expected a UUID, got 'x'",
    ]);
    expect(() => t.array(t.string).max(-1)).toThrow(RangeError);
  });
});

describe('t.object', () => {
  const user = t.object({ email: t.string.regex(/@/, 'expected an email address') });
  const order = t.object({
    orgId: t.uuid,
    items: t.array(t.object({ id: t.uuid, qty: t.number.int().min(1) })),
    user,
    note: t.string.optional(),
  });

  it('accepts a valid object', () => {
    const value = { orgId: ID, items: [{ id: ID2, qty: 1 }], user: { email: 'a@b.c' } };
    expect(accept(order, value)).toEqual(value);
  });

  it('strips unknown keys at every level', () => {
    const out = accept(order, {
      orgId: ID,
      items: [{ id: ID, qty: 2, extra: true }],
      user: { email: 'a@b.c', password: 'secret' },
      admin: true,
    });
    expect(out).toEqual({ orgId: ID, items: [{ id: ID, qty: 2 }], user: { email: 'a@b.c' } });
    expect(Object.keys(out)).toEqual(['orgId', 'items', 'user']);
  });

  it('names the path and reason of every issue', () => {
    const issues = refuse(order, {
      orgId: 'nope',
      items: [
        { id: ID, qty: 1 },
        { id: ID, qty: 1 },
        { id: 'bad', qty: 0 },
      ],
      user: { email: 'nobody' },
      note: 7,
    });
    expect(issues).toEqual([
      "orgId: expected a UUID, got 'nope'",
      "items[2].id: expected a UUID, got 'bad'",
      'items[2].qty: expected a number >= 1, got 0',
      'user.email: expected an email address',
      'note: expected a string, got 7',
    ]);
  });

  it('reports each missing required key as "required"', () => {
    expect(refuse(order, {})).toEqual(['orgId: required', 'items: required', 'user: required']);
    expect(refuse(order, { orgId: ID, items: [{}], user: {} })).toEqual([
      'items[0].id: required',
      'items[0].qty: required',
      'user.email: required',
    ]);
  });

  it('refuses non-objects', () => {
    expect(refuse(order, null)).toEqual([': expected an object, got null']);
    expect(refuse(order, [])).toEqual([': expected an object, got an array']);
    expect(refuse(order, 'x')).toEqual([": expected an object, got 'x'"]);
  });

  it('reads only own properties', () => {
    const inherited = Object.create({ email: 'a@b.c' }) as object;
    expect(refuse(user, inherited)).toEqual(['email: required']);
    const proto = t.object({ ['__proto__']: t.string, toString: t.string.optional() });
    const parsed = JSON.parse('{"__proto__":"x"}') as unknown;
    const out = accept(proto, parsed);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(Object.prototype.hasOwnProperty.call(out, 'toString')).toBe(false);
  });

  it('refuses a shape that is not made of t schemas', () => {
    expect(() => t.object({ a: 'x' as unknown as Schema<string> })).toThrow(TypeError);
  });
});

describe('optional and nullable', () => {
  const s = t.object({
    a: t.string.optional(),
    b: t.number.nullable(),
    c: t.boolean.optional().nullable(),
  });

  it('lets an optional key be missing or undefined', () => {
    const out = accept(s, { b: null });
    expect(out).toEqual({ b: null });
    expect('a' in out).toBe(false);
    expect(accept(s, { a: undefined, b: 1 })).toEqual({ a: undefined, b: 1 });
  });

  it('keeps a nullable key required', () => {
    expect(refuse(s, {})).toEqual(['b: required']);
    expect(refuse(s, { b: undefined })).toEqual(['b: expected a number, got undefined']);
  });

  it('still checks present values', () => {
    expect(refuse(s, { a: null, b: 'x', c: 1 })).toEqual([
      'a: expected a string, got null',
      "b: expected a number, got 'x'",
      'c: expected a boolean, got 1',
    ]);
    expect(accept(s, { b: 2, c: null })).toEqual({ b: 2, c: null });
  });

  it('wraps at the root and in arrays', () => {
    expect(run(t.uuid.optional(), undefined)).toEqual({ value: undefined });
    expect(run(t.uuid.nullable(), null)).toEqual({ value: null });
    expect(refuse(t.uuid.nullable(), undefined)).toEqual([': expected a UUID, got undefined']);
    expect(accept(t.array(t.number.nullable()), [1, null])).toEqual([1, null]);
  });
});

describe('Standard Schema V1', () => {
  it('exposes version, vendor and a synchronous validate on every schema', () => {
    const all: Schema<unknown>[] = [
      t.string,
      t.number,
      t.boolean,
      t.uuid,
      t.literal('x'),
      t.enum(['x']),
      t.array(t.string),
      t.object({}),
      t.string.optional(),
      t.string.nullable(),
    ];
    for (const schema of all) {
      expect(isStandardSchema(schema)).toBe(true);
      expect(schema['~standard'].version).toBe(1);
      expect(schema['~standard'].vendor).toBe('ultimat3');
      expect(schema['~standard'].validate(Symbol('x'))).not.toBeInstanceOf(Promise);
    }
  });

  it('reports paths as arrays of keys and indices', () => {
    const s = t.object({ items: t.array(t.object({ id: t.uuid })) });
    expect(run(s, { items: [{ id: ID }, { id: 1 }] })).toEqual({
      issues: [{ message: 'expected a UUID, got 1', path: ['items', 1, 'id'] }],
    });
  });

  it('works with parseWith', async () => {
    const s = t.object({ orgId: t.uuid, n: t.number.int() });
    const ok = await parseWith(s, { orgId: ID, n: 3, extra: 1 });
    expect(ok).toEqual({ ok: true, value: { orgId: ID, n: 3 } });
    if (ok.ok) {
      const typed: Infer<typeof s> = ok.value;
      expect(typed.n).toBe(3);
    }
    expect(await parseWith(s, { n: 1.5 })).toEqual({
      ok: false,
      issues: [
        { path: 'orgId', message: 'required' },
        { path: 'n', message: 'expected a whole number, got 1.5' },
      ],
    });
    const nested = t.object({ items: t.array(t.object({ id: t.uuid })) });
    expect(await parseWith(nested, { items: [{ id: ID }, { id: ID }, { id: 'x' }] })).toEqual({
      ok: false,
      issues: [{ path: 'items[2].id', message: "expected a UUID, got 'x'" }],
    });
  });
});
