import { Cron } from 'croner';
import { InvariantError } from '../errors/runtime-errors';
import { TaskDeclarationInvalidError } from '../errors/scheduler-errors';
import { clockGapsBetween, LONGEST_CLOCK_GAP_MS } from './clock-gaps';
import { isSupportedTimeZone, supportedTimeZones, utcOffsetMs } from './time-zone';

/**
 * How far ahead a declaration looks for the first occurrence. An expression with none inside it (`0 0 31 2 *`) is
 * refused: 8 years, not 5, because 29 February skips the century years 2100, 2200 and 2300.
 */
export const CRON_HORIZON_YEARS = 8;

/** One cron expression resolved in one zone: the scheduler's resolver. */
export interface CronSchedule {
  /** The expression as declared. */
  readonly cron: string;
  /** The IANA zone its wall-clock fields are read in. */
  readonly tz: string;
  /** The first occurrence strictly after `fromMs` (epoch ms), or undefined when the expression has none left. */
  next(fromMs: number): number | undefined;
  /** How many times this schedule has asked croner for a next run: the cost catch-up is measured in. */
  readonly evaluations: number;
}

/**
 * Compiles `cron` in `tz`, refusing at declaration what could never fire: a zone the runtime does not know, a
 * malformed expression (`*\/0`), a year field, and an expression with no occurrence within {@link CRON_HORIZON_YEARS}
 * years of `nowMs`. The horizon is part of the expression croner is handed, so the check is bounded: unbounded, croner
 * walks an impossible date month by month to the year 3000 (and overflows the stack on `0 0 31 4,6,9,11 *`).
 */
export function compileCron(
  owner: string,
  cron: unknown,
  tz: unknown,
  nowMs: number = Date.now(),
): CronSchedule {
  if (!isSupportedTimeZone(tz)) throw invalidZone(owner, tz);
  if (typeof cron !== 'string' || cron.trim().length === 0) {
    throw new TaskDeclarationInvalidError(owner, 'cron', 'must be a non-empty cron expression');
  }
  const expression = nestSpellings(questionMarksAsWildcards(cron));
  const parsed = parse(owner, cron, expression, tz);
  assertFiresWithinHorizon(owner, cron, parsed.getPattern() ?? expression, tz, nowMs);
  return scheduleOf(cron, expression, tz, parsed);
}

/**
 * A field written `?` ("no specific value", as Quartz and Spring write a day field) is a wildcard. croner swaps `?`
 * for `*` only after it decided which day fields are wildcards, so `0 12 ? * MON` OR-ed Mondays with every day of the
 * month and fired daily; handed `*`, the other day field alone decides.
 */
function questionMarksAsWildcards(cron: string): string {
  if (!cron.includes('?')) return cron;
  return cron
    .trim()
    .split(/\s+/)
    .map((field) => (field === '?' ? '*' : field))
    .join(' ');
}

/** `@Cron`'s nicknames croner does not know (it knows `@yearly`, `@monthly`, `@weekly`, `@daily` and `@hourly`). */
const NEST_NICKNAMES: Readonly<Record<string, string>> = {
  '@minutely': '* * * * *',
  '@secondly': '* * * * * *',
  '@weekdays': '0 0 * * 1-5',
  '@weekends': '0 0 * * 0,6',
};

/** The last value of each field, seconds first (weekday 7 is Sunday, as `@Cron` reads `1/2` over 0-7). */
const FIELD_ENDS = [59, 59, 23, 31, 12, 7] as const;

/**
 * What `@Cron` (the `cron` package) takes and croner refuses, spelled croner's way: the nicknames above, and a step
 * from a start with no range (`0/15`, Quartz's spelling; the start may be a name, `MON/2`), which runs from the start
 * to the field's end (`0-59/15`, `MON-7/2`).
 * Anything else is handed on as written, for croner to take or refuse.
 */
function nestSpellings(cron: string): string {
  const name = cron.trim().toLowerCase();
  if (Object.hasOwn(NEST_NICKNAMES, name)) return NEST_NICKNAMES[name] as string;
  if (!cron.includes('/')) return cron;
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) return cron;
  const ends = FIELD_ENDS.slice(6 - fields.length);
  return fields
    .map((field, i) =>
      field
        .split(',')
        .map((part) =>
          part.replace(
            /^(\d+|[a-z]{3})\/(\d+)$/i,
            (_, from: string, step: string) => `${from}-${ends[i]}/${step}`,
          ),
        )
        .join(','),
    )
    .join(' ');
}

/** 5 fields, or 6 with seconds first; a year field pins a recurring task to a calendar and is refused. */
const croner = (cron: string, tz: string): Cron =>
  new Cron(cron, { timezone: tz, paused: true, mode: '5-or-6-parts' });

function parse(owner: string, cron: string, expression: string, tz: string): Cron {
  try {
    return croner(expression, tz);
  } catch (error) {
    throw new TaskDeclarationInvalidError(
      owner,
      'cron',
      `"${cron}" is not a cron expression (${error instanceof Error ? error.message : String(error)})`,
      'Write 5 fields (minute hour day month weekday), or 6 with seconds first, e.g. "*/5 * * * *".',
    );
  }
}

function assertFiresWithinHorizon(
  owner: string,
  cron: string,
  expanded: string,
  tz: string,
  nowMs: number,
): void {
  const fields = expanded.trim().split(/\s+/);
  if (fields.length === 5) fields.unshift('0');
  const year = new Date(nowMs).getUTCFullYear();
  fields.push(`${year}-${year + CRON_HORIZON_YEARS}`);
  let first: Date | null;
  try {
    const bounded = new Cron(fields.join(' '), { timezone: tz, paused: true, mode: '7-part' });
    first = bounded.nextRun(new Date(nowMs));
  } catch {
    first = null;
  }
  if (first === null) {
    throw new TaskDeclarationInvalidError(
      owner,
      'cron',
      `"${cron}" has no occurrence in the next ${CRON_HORIZON_YEARS} years (an impossible date such as 31 February?)`,
      'Write an expression that names a date the calendar has.',
    );
  }
}

function invalidZone(owner: string, tz: unknown): TaskDeclarationInvalidError {
  if (typeof tz !== 'string' || tz.length === 0) {
    return new TaskDeclarationInvalidError(
      owner,
      'tz',
      'is required',
      "Name the IANA zone the cron's wall clock is read in, e.g. tz: 'UTC' or tz: 'Europe/Berlin'.",
    );
  }
  const suffix = `/${tz.toLowerCase()}`;
  const near = [...supportedTimeZones()].filter((z) => z.toLowerCase().endsWith(suffix));
  return new TaskDeclarationInvalidError(
    owner,
    'tz',
    `"${tz}" is not a zone of this runtime's IANA database`,
    near.length > 0
      ? `Did you mean ${near.map((z) => `'${z}'`).join(' or ')}?`
      : "Use a name from Intl.supportedValuesOf('timeZone'), or 'UTC'.",
  );
}

function scheduleOf(cron: string, expression: string, tz: string, parsed: Cron): CronSchedule {
  let evaluations = 0;
  /** The expression on a UTC clock: reads the wall times a spring-forward gap skips. Built on first need. */
  let wallClock: Cron | undefined;
  const raw = (fromMs: number): number | undefined => {
    evaluations += 1;
    const at = parsed.nextRun(new Date(fromMs));
    return at === null ? undefined : at.getTime();
  };
  return {
    cron,
    tz,
    get evaluations() {
      return evaluations;
    },
    next(fromMs) {
      const at = existingNext(fromMs);
      if (at === undefined || tz === 'UTC' || tz === 'Etc/UTC') return at;
      const shifted = gapOccurrence(fromMs, at);
      return shifted !== undefined && shifted < at ? shifted : at;
    },
  };

  /**
   * The first occurrence after `fromMs` on a wall time the zone shows (croner, past a fall-back's repeated hour), at
   * the FIRST instant of that wall time. croner maps a repeated wall time to its first instant only when the repeat
   * lasts one hour: on Lord Howe's 30 minutes and Troll's two hours it answers the second, so such an answer is moved
   * back to the first — or, when the first is already behind `fromMs`, past the repeated stretch.
   */
  function existingNext(fromMs: number): number | undefined {
    let probe = fromMs;
    for (let hop = 0; hop < 6; hop++) {
      const at = raw(probe);
      if (at === undefined) return at;
      if (at <= fromMs) {
        probe = lastSecondOfRepeatedHour(tz, probe, at);
        continue;
      }
      const first = firstInstantOf(tz, at);
      if (first === at || first > fromMs) return first;
      probe = lastSecondOfRepeatedHour(tz, at, first);
    }
    throw new InvariantError(
      `croner answered no occurrence after ${new Date(fromMs).toISOString()} for "${cron}" in ${tz}.`,
    );
  }

  /**
   * The first wall time inside a spring-forward gap, shifted forward by the gap, that lands in `(fromMs, untilMs)`.
   * croner shifts only the FIRST matching time of a gap (so `*\/15 2 * * *` lost 02:15, 02:30 and 02:45 on the switch
   * day); the gap's wall times are read here on a UTC clock instead, where every one of them exists.
   */
  function gapOccurrence(fromMs: number, untilMs: number): number | undefined {
    for (const gap of clockGapsBetween(tz, fromMs - LONGEST_CLOCK_GAP_MS, untilMs)) {
      if (gap.atMs + gap.lengthMs <= fromMs) continue;
      const gapWallStart = gap.atMs + gap.offsetBeforeMs;
      evaluations += 1;
      const wall = (wallClock ??= croner(expression, 'UTC')).nextRun(
        new Date(Math.max(gapWallStart - 1000, fromMs + gap.offsetBeforeMs)),
      );
      if (wall !== null && wall.getTime() < gapWallStart + gap.lengthMs) {
        return wall.getTime() - gap.offsetBeforeMs;
      }
    }
    return undefined;
  }
}

/**
 * The first instant showing the wall time `atMs` shows: `atMs` itself, unless `atMs` lies in the second pass of a
 * fall-back's repeated stretch — then the instant in the first pass, one repeat length earlier.
 */
function firstInstantOf(tz: string, atMs: number): number {
  const offset = utcOffsetMs(tz, atMs);
  const before = utcOffsetMs(tz, atMs - LONGEST_CLOCK_GAP_MS);
  const repeat = before - offset;
  if (repeat <= 0) return atMs;
  // the same wall time one repeat earlier exists only while that instant is still on the earlier offset
  return utcOffsetMs(tz, atMs - repeat) === before ? atMs - repeat : atMs;
}

/**
 * croner reads a reference inside the second pass of a fall-back hour as its wall time and maps the next matching wall
 * time to its FIRST instant — earlier than the reference. Those wall times already had their instant, so the next
 * occurrence is at or after the end of the repeated stretch: answer the second before it, found by bisection on the
 * zone's offset (about 12 offset reads for an hour). `earlierMs` is croner's answer, in the first pass.
 */
function lastSecondOfRepeatedHour(tz: string, fromMs: number, earlierMs: number): number {
  const start = Math.floor(fromMs / 1000) * 1000;
  const delta = utcOffsetMs(tz, earlierMs) - utcOffsetMs(tz, start);
  if (delta <= 0) return start + 1000;
  // the end of the repetition: the first instant whose wall time was not already shown `delta` earlier
  const repeatedEnds = (t: number): boolean => utcOffsetMs(tz, t - delta) === utcOffsetMs(tz, t);
  let lo = start;
  let hi = start + delta;
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (repeatedEnds(mid)) hi = mid;
    else lo = mid;
  }
  return hi - 1000;
}
