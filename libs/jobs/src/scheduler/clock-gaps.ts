import { utcOffsetMs } from './time-zone';

/** A spring-forward switch: at `atMs` the zone's wall clock jumps forward by `lengthMs`. */
export interface ClockGap {
  /** The first instant on the new offset (epoch ms, whole seconds). */
  readonly atMs: number;
  /** How far the wall clock jumps (one hour almost everywhere; 30 minutes on Lord Howe). */
  readonly lengthMs: number;
  /** The zone's UTC offset just before the switch. */
  readonly offsetBeforeMs: number;
}

/** Longer than any gap a zone has had: how far before a reference a gap can start and still reach past it. */
export const LONGEST_CLOCK_GAP_MS = 3 * 3_600_000;

/**
 * The scan's stride. Comparing offsets at both ends of a stride finds a switch inside it only while a stride holds at
 * most one: no zone of the IANA database switches twice within a week.
 */
const STRIDE_MS = 7 * 24 * 3_600_000;

/**
 * The spring-forward switches of `tz` in `(fromMs, toMs]`, in order: a stride-by-stride comparison of offsets (two
 * reads for the usual span of a few hours), each switch then placed to the second by bisection.
 */
export function clockGapsBetween(tz: string, fromMs: number, toMs: number): ClockGap[] {
  const gaps: ClockGap[] = [];
  let lo = Math.floor(fromMs / 1000) * 1000;
  let before = utcOffsetMs(tz, lo);
  while (lo < toMs) {
    const hi = Math.min(lo + STRIDE_MS, Math.ceil(toMs / 1000) * 1000);
    const after = utcOffsetMs(tz, hi);
    if (after > before) gaps.push(placeSwitch(tz, lo, hi, before, after));
    lo = hi;
    before = after;
  }
  return gaps;
}

/** Bisects `(lo, hi]` for the first second on the offset `after`; `lo` reads `before`. */
function placeSwitch(tz: string, lo: number, hi: number, before: number, after: number): ClockGap {
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (utcOffsetMs(tz, mid) === before) lo = mid;
    else hi = mid;
  }
  return { atMs: hi, lengthMs: after - before, offsetBeforeMs: before };
}
