import type { TaskHandle } from '../declare/task';
import { latestOccurrence, walkOccurrences } from './occurrences';

/** One fire a round makes: the occurrence, and where the watermark moves with it. */
export interface PlannedFire {
  readonly occurrenceMs: number;
  readonly watermarkMs: number;
}

/** What one due task does this round. */
export interface CatchUpPlan {
  /** The fires, in order; each is its own atomic step. */
  readonly fires: readonly PlannedFire[];
  /**
   * The first occurrence after the last fire (after the watermark when nothing fires); at or before now when a
   * `run-all` walk stopped at `maxCatchUp` with more due. Infinity when the expression has no occurrence left.
   */
  readonly nextMs: number;
  /** Whether occurrences were missed (more than one was due): the round is a catch-up. */
  readonly caughtUp: boolean;
}

/**
 * Plans a due task from its watermark, `nextMs` (the cached first occurrence after it) and now. One occurrence due is
 * the everyday case and costs one evaluation (the one after it). More than one is a gap, and the policy decides:
 *
 * - `skip` fires the TRUE latest missed occurrence, found by bisection, and the watermark moves there;
 * - `run-once` fires the EARLIEST missed one, and the watermark moves past the rest in the same step, so the task
 *   then waits for its next real occurrence (not one catch-up per tick);
 * - `run-all` fires every missed one in order, walking at most `maxCatchUp` per round.
 */
export function planCatchUp(
  task: Pick<TaskHandle, 'schedule' | 'catchUp' | 'maxCatchUp'>,
  watermarkMs: number,
  nextMs: number,
  nowMs: number,
): CatchUpPlan {
  const { schedule } = task;
  if (nextMs > nowMs) return { fires: [], nextMs, caughtUp: false };
  const second = schedule.next(nextMs) ?? Infinity;
  if (second > nowMs) {
    return {
      fires: [{ occurrenceMs: nextMs, watermarkMs: nextMs }],
      nextMs: second,
      caughtUp: false,
    };
  }
  if (task.catchUp === 'run-all') {
    const walk = walkOccurrences(schedule, watermarkMs, nowMs, task.maxCatchUp);
    return {
      fires: walk.occurrences.map((at) => ({ occurrenceMs: at, watermarkMs: at })),
      nextMs: walk.next ?? Infinity,
      caughtUp: true,
    };
  }
  // `second <= nowMs`, so the latest exists and is at least `second`.
  const latest = latestOccurrence(schedule, nextMs, nowMs) ?? second;
  const after = schedule.next(latest) ?? Infinity;
  const fire =
    task.catchUp === 'run-once'
      ? { occurrenceMs: nextMs, watermarkMs: latest }
      : { occurrenceMs: latest, watermarkMs: latest };
  return { fires: [fire], nextMs: after, caughtUp: true };
}
