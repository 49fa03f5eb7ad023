import type { TaskHandle } from '../declare/task';
import { ValueInvalidError } from '../errors/value-errors';
import { timeProblem } from '../values/scalars';
import type { CronSchedule } from './cron-schedule';

/**
 * The TRUE latest occurrence in `(afterMs, nowMs]`, or undefined when there is none — found by bisection over the gap,
 * never by walking it: about 14 evaluations for three hours and 26 for a year, whatever the schedule's density
 * (occurrences are whole seconds, so the search stops at one-second resolution).
 *
 * Invariant: `lo` is an occurrence at or before `nowMs`, and no occurrence lies in `(hi, nowMs]`. Asking for the first
 * occurrence after the midpoint either finds one inside `(mid, hi]` — a later candidate, so `lo` jumps to it — or
 * proves that stretch empty, so `hi` halves.
 */
export function latestOccurrence(
  schedule: CronSchedule,
  afterMs: number,
  nowMs: number,
): number | undefined {
  const first = schedule.next(afterMs);
  if (first === undefined || first > nowMs) return undefined;
  let lo = first;
  let hi = nowMs;
  while (hi - lo >= 1000) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const candidate = schedule.next(mid);
    if (candidate !== undefined && candidate <= hi) lo = candidate;
    else hi = mid;
  }
  return lo;
}

/**
 * Walks the occurrences in `(afterMs, nowMs]` in order, at most `limit` of them. `more` says whether the walk stopped
 * at the limit with occurrences still due; `next` is the first occurrence after the last one answered (or after
 * `afterMs` when none was), which is when the task is next due.
 */
export function walkOccurrences(
  schedule: CronSchedule,
  afterMs: number,
  nowMs: number,
  limit: number,
): { readonly occurrences: readonly number[]; readonly next: number | undefined } {
  const occurrences: number[] = [];
  let next = schedule.next(afterMs);
  while (next !== undefined && next <= nowMs && occurrences.length < limit) {
    occurrences.push(next);
    next = schedule.next(next);
  }
  return { occurrences, next };
}

/**
 * When `task` next fires after `from` (epoch ms), or undefined when its expression has no occurrence left: the
 * scheduler's own resolver (croner in the task's zone), answerable with no scheduler running. A `from` that is no
 * time in years 0001–9999 (`NaN`, an invalid `Date`) is `X_VALUE_INVALID`.
 */
export function nextTaskRun(
  task: Pick<TaskHandle, 'schedule'>,
  from: number | Date,
): number | undefined {
  const fromMs = from instanceof Date ? from.getTime() : from;
  const problem = timeProblem(Number.isFinite(fromMs) ? Math.floor(fromMs) : fromMs);
  if (problem !== undefined) throw new ValueInvalidError('nextTaskRun(from)', problem);
  return task.schedule.next(fromMs);
}
