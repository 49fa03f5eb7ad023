import type * as FastCheck from 'fast-check';
import { OptionalPeerMissingError } from '../../errors/declaration-errors';
import { MAX_JSON_DEPTH } from '../../values/bounds';

/** The fast-check module, loaded the first time a property suite registers: a dev dependency of a driver's tests only. */
export type Fc = typeof FastCheck;

let loaded: Fc | undefined;

/** The suites that generate their cases with fast-check, as `X_PEER_MISSING` names them. */
const PROPERTY_SUITES =
  'The property tests of jobDriverConformance, jobDriverAgreement and eventBusValuesConformance';

/**
 * Loads fast-check (an optional peer of `@ultimat3/jobs`). Plain `require` on purpose: `@ultimat3/jobs/testing` must
 * import without it (an app's test kit may use `runJobs` and never the conformance suite), and only a driver's own
 * spec pays for the dependency. Missing, it is `X_PEER_MISSING` with the install line; the suites call it as they
 * register, so a spec without it fails at once, naming the package, and never half-registered.
 */
export function loadFastCheck(): Fc {
  if (loaded !== undefined) return loaded;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when used
    loaded = require('fast-check') as Fc;
  } catch (cause) {
    throw new OptionalPeerMissingError(PROPERTY_SUITES, ['fast-check'], cause);
  }
  return loaded;
}

/** Generated cases per property (default 2,000; `JOBS_PROPERTY_RUNS` sets another positive whole number). */
export function propertyRuns(): number {
  const asked = Number(process.env['JOBS_PROPERTY_RUNS']);
  return Number.isInteger(asked) && asked > 0 ? asked : 2_000;
}

/** A JSON value generated with what the generator knows of it: nested how deep, and whether it holds a non-JSON leaf. */
export interface GeneratedValue {
  readonly value: unknown;
  /** Containers on the deepest path (a scalar is 0), counted by the generator, not by the code under test. */
  readonly depth: number;
  /** A leaf JSON cannot hold (undefined in an array, a function, NaN, a Date, a cycle …). */
  readonly poisoned: boolean;
}

/**
 * One UTF-16 code unit or code point at a time: any code point (astral ones as pairs), lone surrogates of both halves,
 * NUL, and the characters escaping trips on.
 */
export function textUnit(fc: Fc): FastCheck.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
    {
      weight: 2,
      arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
    },
    { weight: 1, arbitrary: fc.constant('\u0000') },
    {
      weight: 2,
      arbitrary: fc.constantFrom('"', '\\', '\n', '\u2028', '\ufeff', '\ud83d\ude00', 'a', '_'),
    },
  );
}

/** Strings of any content up to `maxLength` code points. */
export function anyText(fc: Fc, maxLength: number): FastCheck.Arbitrary<string> {
  return fc.string({ unit: textUnit(fc), maxLength });
}

/** Numbers at the edges of what a double, a JSON text and an integer column hold. */
export function edgeNumber(fc: Fc): FastCheck.Arbitrary<number> {
  return fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.constantFrom(
      -0,
      0,
      5e-324,
      -5e-324,
      Number.MAX_VALUE,
      -Number.MAX_VALUE,
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
      2 ** 53,
      1e21,
      1e-7,
      0.1,
    ),
  );
}

/** Object keys: any text, and the names a careless copy mistreats (`__proto__` above all). */
function anyKey(fc: Fc): FastCheck.Arbitrary<string> {
  return fc.oneof(
    anyText(fc, 6),
    fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      '',
      '0',
      '10',
      '-1',
      '1.5',
    ),
  );
}

/** An object with exactly these own members, in this order — `__proto__` included as an own key, never a prototype. */
function objectOf(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  return Object.fromEntries(entries) as Record<string, unknown>;
}

/** Arbitrary JSON values (any text, edge numbers, `__proto__` keys), shallow enough to sit inside the bound. */
export function anyJson(fc: Fc): FastCheck.Arbitrary<unknown> {
  const scalar = fc.oneof(anyText(fc, 12), edgeNumber(fc), fc.boolean(), fc.constant(null));
  const { value } = fc.letrec<{ value: unknown; array: unknown[]; object: unknown }>((tie) => ({
    value: fc.oneof({ depthSize: 'small', maxDepth: 6 }, scalar, tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.array(fc.tuple(anyKey(fc), tie('value')), { maxLength: 4 }).map(objectOf),
  }));
  return value;
}

/** Containers on the deepest path of a JSON value, counted with an explicit stack. */
export function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) {
      deepest = Math.max(deepest, depth);
      continue;
    }
    const children = Array.isArray(item) ? item : Object.values(item);
    if (children.length === 0) deepest = Math.max(deepest, depth + 1);
    for (const child of children) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** `leaf` wrapped in `levels` containers, arrays or objects as `shapes` says, built without recursion. */
function wrap(leaf: unknown, shapes: readonly boolean[], key: string): unknown {
  let value = leaf;
  for (const asArray of shapes) value = asArray ? [value] : objectOf([[key, value]]);
  return value;
}

/** Values nested around the bound (its depth ± 4), wrapped around any JSON leaf. */
export function nearBoundJson(fc: Fc): FastCheck.Arbitrary<unknown> {
  return fc
    .tuple(
      fc.array(fc.boolean(), { minLength: MAX_JSON_DEPTH - 6, maxLength: MAX_JSON_DEPTH + 4 }),
      fc.oneof(anyText(fc, 4), edgeNumber(fc), fc.constant(null)),
      anyKey(fc),
    )
    .map(([shapes, leaf, key]) => wrap(leaf, shapes, key));
}

class Money {
  constructor(readonly cents: number) {}
}

/** Leaves no JSON text can carry unchanged. */
function poison(fc: Fc): FastCheck.Arbitrary<() => unknown> {
  return fc.constantFrom(
    () => [undefined],
    () => () => 1,
    () => Symbol('s'),
    () => 10n,
    () => Number.NaN,
    () => Number.POSITIVE_INFINITY,
    () => new Date(0),
    () => new Map([['a', 1]]),
    () => new Set([1]),
    () => new Money(1),
    () => {
      const cycle: Record<string, unknown> = {};
      cycle['self'] = cycle;
      return cycle;
    },
  );
}

/** JSON values with what the generator knows of them: plain, near the depth bound, or holding a poisoned leaf. */
export function generatedValue(fc: Fc): FastCheck.Arbitrary<GeneratedValue> {
  const plain = anyJson(fc).map((value) => ({ value, depth: depthOf(value), poisoned: false }));
  const deep = nearBoundJson(fc).map((value) => ({
    value,
    depth: depthOf(value),
    poisoned: false,
  }));
  const poisoned = fc.tuple(anyKey(fc), poison(fc)).map(([key, make]) => ({
    value: objectOf([[key, make()]]),
    depth: 1,
    poisoned: true,
  }));
  return fc.oneof(
    { weight: 6, arbitrary: plain },
    { weight: 2, arbitrary: deep },
    { weight: 1, arbitrary: poisoned },
  );
}
