import { jsonProblem } from './json-value';

class Point {
  constructor(readonly x: number) {}
}

describe('jsonProblem', () => {
  it('passes a one-level object of strings, booleans, null, finite numbers and absent members', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare['a'] = 1;
    for (const value of [
      {},
      { n: 1, t: 0 },
      { s: 'x', b: false, z: null, u: undefined, f: -0.5 },
      bare,
    ]) {
      expect(jsonProblem(value)).toBeUndefined();
    }
  });

  it('names the member of a one-level object that JSON would change, as the full walk does', () => {
    const cases: [unknown, string][] = [
      [{ n: Number.NaN }, 'n is NaN'],
      [{ ok: 1, n: Number.POSITIVE_INFINITY }, 'n is Infinity'],
      [{ d: new Date(0) }, 'd is a Date'],
      [{ big: BigInt(1) }, 'big is a BigInt'],
      [{ f: () => 1 }, 'f is a function'],
      [{ s: Symbol('s') }, 's is a symbol'],
      [{ m: new Map() }, 'm is a Map'],
      [new Point(1), 'value is a Point'],
    ];
    for (const [value, problem] of cases) expect(jsonProblem(value)).toBe(problem);
  });

  it('still walks what is not one level: nesting, arrays, cycles, and the depth limit', () => {
    expect(jsonProblem({ a: { b: [1, { c: Number.NaN }] } })).toBe('a.b[1].c is NaN');
    expect(jsonProblem([1, 'x', null])).toBeUndefined();
    const cycle: Record<string, unknown> = { n: 1 };
    cycle['self'] = cycle;
    expect(jsonProblem(cycle)).toBe('self is a cycle');
    expect(jsonProblem({ n: 1 }, 0)).toBe('value is nested deeper than 0 levels');
    expect(jsonProblem({ n: { m: 1 } }, 1)).toBe('n is nested deeper than 1 levels');
  });
});
