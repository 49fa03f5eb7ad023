/**
 * The occurrences a task SHOULD fire, computed without the scheduler: scenario 4 judges the scheduler's fires against
 * this list, so it must not ask the scheduler's resolver (croner behind `cron-schedule.ts`) to judge itself. It walks
 * the zone's wall clock minute by minute, matches each wall minute against the expression with its own field parser,
 * and maps the wall time to an instant with the zone's offsets read through `Intl`'s `longOffset` names (a different
 * path from the product's `formatToParts` arithmetic). The mapping is the documented rule (docs/dst.md): every wall
 * time the expression names fires exactly once — a time inside a spring-forward gap at the instant it would have had
 * on the offset before the switch, a time shown twice at its first instant — and one instant is one occurrence.
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** The values one cron field allows. */
type Field = ReadonlySet<number>;

/** A 5-field cron expression (minute hour day-of-month month day-of-week), parsed. */
interface CronFields {
  readonly minute: Field;
  readonly hour: Field;
  readonly dayOfMonth: Field | '*';
  readonly month: Field;
  readonly dayOfWeek: Field | '*';
}

function parseField(text: string, min: number, max: number): Field {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const [range, stepText] = part.split('/') as [string, string | undefined];
    const step = stepText === undefined ? 1 : Number(stepText);
    const [lo, hi] =
      range === '*'
        ? [min, max]
        : range.includes('-')
          ? (range.split('-').map(Number) as [number, number])
          : [Number(range), stepText === undefined ? Number(range) : max];
    if (![lo, hi, step].every(Number.isInteger) || step < 1 || lo < min || hi > max || lo > hi) {
      throw new Error(`cron oracle: field "${text}" is outside what this oracle reads`);
    }
    for (let v = lo; v <= hi; v += step) values.add(v);
  }
  return values;
}

/** Parses the 5-field expressions the scenario declares (no names, no `L`/`W`/`#`, no seconds). */
export function parseCron(cron: string): CronFields {
  const parts = cron.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`cron oracle: "${cron}" is not 5 fields`);
  const [minute, hour, dom, month, dow] = parts as [string, string, string, string, string];
  return {
    minute: parseField(minute, 0, 59),
    hour: parseField(hour, 0, 23),
    dayOfMonth: dom === '*' ? '*' : parseField(dom, 1, 31),
    month: parseField(month, 1, 12),
    dayOfWeek: dow === '*' ? '*' : new Set([...parseField(dow, 0, 7)].map((d) => d % 7)),
  };
}

/** Whether a wall time (epoch ms read as UTC fields) matches; day fields combine as cron's OR when both are set. */
function matches(fields: CronFields, wallMs: number): boolean {
  const d = new Date(wallMs);
  if (!fields.minute.has(d.getUTCMinutes()) || !fields.hour.has(d.getUTCHours())) return false;
  if (!fields.month.has(d.getUTCMonth() + 1)) return false;
  const dom = fields.dayOfMonth === '*' || fields.dayOfMonth.has(d.getUTCDate());
  const dow = fields.dayOfWeek === '*' || fields.dayOfWeek.has(d.getUTCDay());
  if (fields.dayOfMonth !== '*' && fields.dayOfWeek !== '*') return dom || dow;
  return dom && dow;
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** The zone's UTC offset at an instant, from its `longOffset` name (`GMT-04:00`, `GMT+01:00`, `GMT`). */
export function zoneOffsetMs(tz: string, atMs: number): number {
  let format = offsetFormats.get(tz);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' });
    offsetFormats.set(tz, format);
  }
  const name = format.formatToParts(new Date(atMs)).find((p) => p.type === 'timeZoneName');
  const m = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name?.value ?? '');
  if (m === null) throw new Error(`cron oracle: no offset for ${tz} at ${atMs}`);
  if (m[1] === undefined) return 0;
  const ms = Number(m[2]) * HOUR_MS + Number(m[3]) * MINUTE_MS;
  return m[1] === '-' ? -ms : ms;
}

/**
 * The instant a wall time (epoch ms read as UTC fields) fires at in `tz`: its first instant when it exists (twice
 * after a fall-back), else — inside a spring-forward gap — the instant it would have had on the offset before the gap.
 */
export function instantOfWallTime(tz: string, wallMs: number): number {
  // the offsets in force within a day either side: at most two, as no zone switches twice in two days
  const offsets = new Set([-16, -8, 0, 8, 16].map((h) => zoneOffsetMs(tz, wallMs + h * HOUR_MS)));
  const real = [...offsets]
    .map((o) => wallMs - o)
    .filter((t) => zoneOffsetMs(tz, t) === wallMs - t);
  if (real.length > 0) return Math.min(...real);
  const earliest = Math.min(...[...offsets].map((o) => wallMs - o));
  return wallMs - zoneOffsetMs(tz, earliest - 3 * HOUR_MS);
}

/** The instant of a local date and time (`2026-03-08`, `02:30`) in `tz`, by the same rule. */
export function localInstant(tz: string, day: string, time: string): number {
  return instantOfWallTime(tz, Date.parse(`${day}T${time}:00Z`));
}

/** Every occurrence of `cron` in `tz` in `(fromMs, toMs]`, ascending, each instant once. */
export function expectedOccurrences(
  cron: string,
  tz: string,
  fromMs: number,
  toMs: number,
): number[] {
  const fields = parseCron(cron);
  const found = new Set<number>();
  // wall times a few hours either side of the window: a gap's wall times fire after it, a repeat's before it
  const wallFrom =
    Math.floor((fromMs + zoneOffsetMs(tz, fromMs)) / MINUTE_MS) * MINUTE_MS - 3 * HOUR_MS;
  const wallTo = toMs + zoneOffsetMs(tz, toMs) + 3 * HOUR_MS;
  for (let wall = wallFrom; wall <= wallTo; wall += MINUTE_MS) {
    if (!matches(fields, wall)) continue;
    const at = instantOfWallTime(tz, wall);
    if (at > fromMs && at <= toMs) found.add(at);
  }
  return [...found].sort((a, b) => a - b);
}
