import { InvariantError } from '../errors/runtime-errors';
import { isStandardSchema, parseWith } from './standard';
import { type Infer, Schema, t } from './index';
import { accept, ID, ID2, refuse, run } from '../../test/schema-outcomes';

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
    // both bounds are inclusive
    expect(accept(some, [ID])).toEqual([ID]);
    expect(accept(some, [ID, ID2])).toEqual([ID, ID2]);
    expect(refuse(some, [ID, ID, 'x'])).toEqual([
      ': expected at most 2 items, got 3',
      "[2]: expected a UUID, got 'x'",
    ]);
    expect(() => t.array(t.string).max(-1)).toThrow(InvariantError);
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
    expect(() => t.object({ a: 'x' as unknown as Schema<string> })).toThrow(InvariantError);
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

  it('is told apart from what only looks like one: another version, or no validate', () => {
    const validate = (): { value: unknown } => ({ value: 1 });
    expect(isStandardSchema({ '~standard': { version: 1, vendor: 'x', validate } })).toBe(true);
    for (const version of [2, 0, '1', undefined]) {
      expect(isStandardSchema({ '~standard': { version, vendor: 'x', validate } })).toBe(false);
    }
    expect(isStandardSchema({ '~standard': { version: 1, vendor: 'x' } })).toBe(false);
    expect(isStandardSchema(null)).toBe(false);
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
