import type { CatchUpPolicy } from '@ultimat3/jobs';

/** One fire of a task as its row records it: the occurrence, and the driven "now" the firing round planned it at. */
export interface ObservedFire {
  readonly occurrenceMs: number;
  /** The row's `runAt`: a fire's jobs are due at the round's now, the instant its catch-up plan was made at. */
  readonly plannedAtMs: number;
}

/** What one task's fires prove against the occurrences its cron, zone and policy say exist. */
export interface TaskVerdict {
  /** Fires beyond the first of one occurrence. */
  readonly doubles: number;
  /** Fires of an instant the cron and zone do not name (a DST mistake), or at or before the arming. */
  readonly unexpected: number;
  /** Occurrences up to the judged end that never fired and that the policy does not let pass. */
  readonly skippedBeyondPolicy: number;
  /** Occurrences the policy let pass (a catch-up after an outage). */
  readonly skippedByPolicy: number;
  /** Distinct occurrences fired. */
  readonly fired: number;
  /** Occurrences in (armed, judged end]. */
  readonly expected: number;
}

/** What the judge needs of one task. */
export interface JudgeInput {
  readonly policy: CatchUpPolicy;
  /** The watermark the task was armed at: nothing at or before it is owed. */
  readonly armedAtMs: number;
  /** Every expected occurrence after `armedAtMs`, ascending, reaching past `judgeEndMs` (fires late in the run land there). */
  readonly expected: readonly number[];
  readonly fires: readonly ObservedFire[];
  /** Occurrences after it are not owed yet: the run stopped near it. */
  readonly judgeEndMs: number;
}

/** The latest expected occurrence at or before `atMs` (binary search), or undefined. */
function latestAtOrBefore(expected: readonly number[], atMs: number): number | undefined {
  let lo = 0;
  let hi = expected.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((expected[mid] as number) <= atMs) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? undefined : expected[lo - 1];
}

/**
 * Whether the policy lets occurrence `missed` pass, given the fire before it (`prev`, or the arming) and the fire
 * after it (`next`), each with its planning instant:
 *
 * - `run-all` never lets one pass;
 * - `run-once` fires the earliest missed occurrence and passes the rest due at that round: `missed` must have been due
 *   when `prev` was planned;
 * - `skip` fires the latest due occurrence and passes the ones before it: `missed` must NOT have been due when `prev`
 *   was planned (else `prev` was not the latest), and `next` must be the latest one due when it was planned.
 */
function policyLetsPass(
  policy: CatchUpPolicy,
  expected: readonly number[],
  missed: number,
  prev: ObservedFire,
  next: ObservedFire | undefined,
): boolean {
  if (policy === 'run-all') return false;
  if (policy === 'run-once') return missed <= prev.plannedAtMs;
  if (next === undefined || missed <= prev.plannedAtMs) return false;
  return latestAtOrBefore(expected, next.plannedAtMs) === next.occurrenceMs;
}

/**
 * Judges one task's fires. The expected list comes from the independent oracle (`cron-oracle.ts`), never from the
 * scheduler's resolver; the fires come from the rows the fires enqueued.
 */
export function judgeTask(input: JudgeInput): TaskVerdict {
  const { policy, armedAtMs, expected, fires, judgeEndMs } = input;
  const owed = new Set(expected);
  const first = new Map<number, ObservedFire>();
  let doubles = 0;
  let unexpected = 0;
  for (const fire of fires) {
    if (!owed.has(fire.occurrenceMs)) unexpected++;
    const seen = first.get(fire.occurrenceMs);
    if (seen !== undefined) doubles++;
    if (seen === undefined || fire.plannedAtMs < seen.plannedAtMs)
      first.set(fire.occurrenceMs, fire);
  }
  const fired = [...first.values()]
    .filter((f) => owed.has(f.occurrenceMs))
    .sort((a, b) => a.occurrenceMs - b.occurrenceMs);
  let prev: ObservedFire = { occurrenceMs: armedAtMs, plannedAtMs: armedAtMs };
  let at = 0;
  let skippedBeyondPolicy = 0;
  let skippedByPolicy = 0;
  let owedCount = 0;
  for (const occurrence of expected) {
    if (occurrence > judgeEndMs) break;
    owedCount++;
    while (at < fired.length && (fired[at] as ObservedFire).occurrenceMs < occurrence) {
      prev = fired[at] as ObservedFire;
      at++;
    }
    const next = fired[at];
    if (next !== undefined && next.occurrenceMs === occurrence) continue;
    if (policyLetsPass(policy, expected, occurrence, prev, next)) skippedByPolicy++;
    else skippedBeyondPolicy++;
  }
  return {
    doubles,
    unexpected,
    skippedBeyondPolicy,
    skippedByPolicy,
    fired: fired.filter((f) => f.occurrenceMs <= judgeEndMs).length,
    expected: owedCount,
  };
}
