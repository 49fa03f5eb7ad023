import { MAX_TIME_MS, MIN_TIME_MS } from './bounds';
import { describeValue } from './text';

/** Letters, digits and `. _ : -`, not starting with a symbol: what job, task and queue names are made of. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/** A canonical UUID in lower case, any version: what an id column stores and reads back unchanged. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Why `value` cannot be a job, task or queue name of at most `max` characters, or undefined. */
export function nameProblem(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string' || value.length === 0) {
    return `must be a non-empty string (got ${describeValue(value)})`;
  }
  if (value.length > max) return `is ${value.length} characters long, over the ${max} allowed`;
  if (!NAME.test(value)) {
    return 'may hold only letters, digits and . _ : - (and not start with a symbol)';
  }
  return undefined;
}

/** Why `value` is not a whole number from `min` to `max`, or undefined. */
export function integerProblem(value: unknown, min: number, max: number): string | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) {
    return undefined;
  }
  return `must be a whole number from ${min} to ${max} (got ${describeValue(value)})`;
}

/** Why `value` is not a time every driver stores: whole epoch ms in years 0001–9999. Undefined when it is. */
export function timeProblem(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) {
    if (value >= MIN_TIME_MS && value <= MAX_TIME_MS) return undefined;
    return `is ${describeTime(value)}, outside years 0001–9999`;
  }
  return `must be whole epoch milliseconds (got ${describeValue(value)})`;
}

/** Why `value` is not a lower-case canonical UUID, or undefined. */
export function uuidProblem(value: unknown): string | undefined {
  if (typeof value === 'string' && UUID.test(value)) return undefined;
  return `must be a UUID in lower case (got ${describeValue(value)})`;
}

/** Why `value` is not one of `allowed`, or undefined. */
export function enumProblem(value: unknown, allowed: readonly string[]): string | undefined {
  if (typeof value === 'string' && allowed.includes(value)) return undefined;
  return `must be one of ${allowed.map((a) => `'${a}'`).join(', ')} (got ${describeValue(value)})`;
}

/** Epoch ms as an ISO time when a Date can hold it, else the number. */
function describeTime(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? `${ms} ms` : date.toISOString();
}
