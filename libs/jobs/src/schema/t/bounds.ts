import { InvariantError } from '../../errors/runtime-errors';
/**
 * Asserts that a length bound (`t.string.min(n)`, `t.array(s).max(n)`) is a whole number ≥ 0.
 *
 * @throws {InvariantError} (`X_INVARIANT`) when it is not; a schema is declared once, so a bad bound is a bug.
 * @internal
 */
export function assertLengthBound(method: string, bound: number): number {
  if (!Number.isSafeInteger(bound) || bound < 0) {
    throw new InvariantError(
      `${method} expects a whole number >= 0, got ${String(bound)}.`,
      'Pass a length as a whole number from 0 up.',
    );
  }
  return bound;
}

/**
 * Asserts that a numeric bound (`t.number.min(n)`) is a finite number.
 *
 * @throws {InvariantError} (`X_INVARIANT`) when it is not.
 * @internal
 */
export function assertFiniteBound(method: string, bound: number): number {
  if (typeof bound !== 'number' || !Number.isFinite(bound)) {
    throw new InvariantError(
      `${method} expects a finite number, got ${String(bound)}.`,
      'Pass a finite number; leave the bound off for none.',
    );
  }
  return bound;
}
