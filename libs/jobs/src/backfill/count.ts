import type { JobRunContext } from '../declare/run-args';
import { InvariantError } from '../errors/runtime-errors';
import { backfillHandleNamed, backfillOf } from './registry';

/**
 * What a declared `count()` answered, parsed rather than trusted: a non-negative safe integer, else `X_INVARIANT` —
 * `NaN > 0` and `-1 > 0` are both false and would complete the sweep the check exists to fail.
 */
export function checkedCount(backfill: string, answered: unknown): number {
  if (typeof answered !== 'number' || !Number.isSafeInteger(answered) || answered < 0) {
    throw new InvariantError(
      `backfill "${backfill}": count() answered ${String(answered)}, not a non-negative whole number.`,
      'Answer the number of rows the source still selects (qb.getCount()).',
    );
  }
  return answered;
}

/**
 * The rows a backfill's `count()` still matches, outside any run — what makes a dry run honest (`x db backfill
 * <name>`). Null when the name declares no count. The context is the one a pass would run under, without a job: a
 * tenant's backfill counts as its org, a `'none'` one as no org (outside a run no tenant check applies).
 */
export async function countBackfill(name: string, signal: AbortSignal): Promise<number | null> {
  const resolved = backfillOf(backfillHandleNamed(name));
  if (resolved?.count === undefined) return null;
  const ctx: JobRunContext = {
    actor: { id: null, orgId: resolved.tenant === 'none' ? null : resolved.tenant() },
    signal,
    hardSignal: signal,
    jobId: '',
    runId: '',
    name,
    attempt: 0,
  };
  return checkedCount(name, await resolved.count({ ctx }));
}
