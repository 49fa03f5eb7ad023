import { JobDeclarationInvalidError, JobInputInvalidError } from '../errors/declaration-errors';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../values/bounds';
import type { ExportFormat } from './export-keys';

/** Rows per page when an export declares no `batch`. */
export const DEFAULT_EXPORT_BATCH = 1_000;
/** The largest `batch`: one page is one statement, one step and one part, held in memory together. */
export const MAX_EXPORT_BATCH = 100_000;
/** Bytes one part may encode to when an export declares no `maxPartBytes`. */
export const DEFAULT_MAX_PART_BYTES = 64 * 1024 * 1024;
/** The largest `maxPartBytes` (1 GiB): past it one part is no longer a heap bound worth the name. */
export const MAX_MAX_PART_BYTES = 1024 * 1024 * 1024;
/** The most columns an export declares. */
export const MAX_EXPORT_COLUMNS = 1_000;

const FORMATS: readonly ExportFormat[] = ['csv', 'jsonl'];

function wholeIn(
  name: string,
  field: string,
  value: unknown,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new JobDeclarationInvalidError(
      name,
      field,
      `must be a whole number from ${min} to ${max} (got ${String(value)})`,
    );
  }
  return value;
}

/** `batch`: rows per page. */
export const checkedBatch = (name: string, value: unknown): number =>
  wholeIn(name, 'batch', value, 1, MAX_EXPORT_BATCH, DEFAULT_EXPORT_BATCH);

/** `maxPartBytes`: the heap bound of one part. */
export const checkedMaxPartBytes = (name: string, value: unknown): number =>
  wholeIn(name, 'maxPartBytes', value, 1, MAX_MAX_PART_BYTES, DEFAULT_MAX_PART_BYTES);

/** `rate`: pages a second, finite and above 0, or undefined (no default: an export is unthrottled unless declared). */
export function checkedRate(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new JobDeclarationInvalidError(
      name,
      'rate',
      `must be a finite number of pages per second above 0 (got ${String(value)})`,
    );
  }
  return value;
}

/** `format`. */
export function checkedFormat(name: string, value: unknown): ExportFormat {
  if (!FORMATS.includes(value as ExportFormat)) {
    throw new JobDeclarationInvalidError(
      name,
      'format',
      `must be 'csv' or 'jsonl' (got ${String(value)})`,
    );
  }
  return value as ExportFormat;
}

/** `columns` (or `key`): a non-empty list of unique, non-empty strings. */
export function checkedNames(name: string, field: string, value: unknown): readonly string[] {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.length > MAX_EXPORT_COLUMNS ||
    !value.every((v) => typeof v === 'string' && v.length > 0) ||
    new Set(value).size !== value.length
  ) {
    throw new JobDeclarationInvalidError(
      name,
      field,
      `must be a non-empty array of at most ${MAX_EXPORT_COLUMNS} unique, non-empty strings`,
    );
  }
  return Object.freeze([...(value as string[])]);
}

/** What is wrong with a prefix, or null. */
function prefixProblem(prefix: string): string | null {
  if (prefix.length === 0) return 'is empty';
  if (prefix.length > MAX_IDEMPOTENCY_KEY_LENGTH - 20)
    return `is longer than ${MAX_IDEMPOTENCY_KEY_LENGTH - 20} characters`;
  if (prefix.startsWith('/')) return 'starts with "/"';
  if (/[\u0000-\u001f\u007f\\]/.test(prefix)) return 'holds a control character or a backslash';
  if (prefix.split('/').some((s) => s === '' || s === '.' || s === '..'))
    return 'holds an empty, "." or ".." segment';
  return null;
}

/**
 * The prefix `prefix(input)` answers, checked: at enqueue (it is the idempotency key) and again in the run. A prefix
 * that could escape its sink's root or name another's objects (`a//b`, `a/`, `../x`, `/x`) is `X_JOB_INPUT_INVALID`.
 */
export function checkedPrefix(name: string, answered: unknown): string {
  const prefix = answered;
  const problem =
    typeof prefix === 'string' ? prefixProblem(prefix) : `is ${typeof prefix}, not a string`;
  if (problem !== null) {
    throw new JobInputInvalidError(name, [{ path: '', message: `prefix(input) ${problem}` }]);
  }
  return answered as string;
}
