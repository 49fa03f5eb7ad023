import type { JobProgress } from '../driver/job-row';
import { ValueInvalidError } from '../errors/value-errors';
import { integerProblem } from './scalars';
import { boundedText, describeValue } from './text';

/**
 * The largest `done` or `total` a progress report may carry: 2^53 − 1, the largest whole number every driver stores
 * and reads back exactly (a JSON number past it is rounded by the reader).
 */
export const MAX_PROGRESS_COUNT = Number.MAX_SAFE_INTEGER;

/**
 * Refuses, with `X_VALUE_INVALID` naming `progress.done`, `progress.total` or `progress.note`, a report no driver
 * stores as it was given: `done` and `total` must be whole numbers from 0 to {@link MAX_PROGRESS_COUNT} — NaN and
 * Infinity became `null` in one driver's JSON and stayed numbers in another's — and a note a string (free text,
 * bounded when stored). `progress()` calls it as the body reports, and each driver's `recordProgress` at its door.
 */
export function assertProgress(progress: JobProgress): void {
  if (typeof progress !== 'object' || progress === null) {
    throw new ValueInvalidError('progress', 'must be an object');
  }
  const rules: [string, string | undefined][] = [
    ['done', integerProblem(progress.done, 0, MAX_PROGRESS_COUNT)],
    ['total', integerProblem(progress.total, 0, MAX_PROGRESS_COUNT)],
    [
      'note',
      progress.note === undefined || typeof progress.note === 'string'
        ? undefined
        : `must be a string (got ${describeValue(progress.note)})`,
    ],
  ];
  for (const [field, reason] of rules) {
    if (reason !== undefined) throw new ValueInvalidError(`progress.${field}`, reason);
  }
}

/** A whole count as every driver reads it back: `-0` is the number 0 to a JSON column. */
const count = (n: number): number => (n === 0 ? 0 : n);

/**
 * The progress a driver stores for `progress`, after {@link assertProgress}: the counts as every driver reads them
 * back, the note bounded free text. Each driver's `recordProgress` stores this, so both answer alike.
 */
export function storableProgress(progress: JobProgress): JobProgress {
  assertProgress(progress);
  const done = count(progress.done);
  const total = count(progress.total);
  return progress.note === undefined
    ? { done, total }
    : { done, total, note: boundedText(progress.note) };
}
