/**
 * Time-zone facts the scheduler needs, read from the runtime's own IANA database (`Intl`), so the zones a task may
 * name are exactly the zones its occurrences can be resolved in.
 */

let known: ReadonlySet<string> | undefined;

/** The canonical zones of the runtime: `Intl.supportedValuesOf('timeZone')` plus `UTC` (which that list leaves out). */
export function supportedTimeZones(): ReadonlySet<string> {
  known ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC']);
  return known;
}

/**
 * Whether `tz` is a zone of the runtime's IANA database. `'Bogota'` is not: it is `'America/Bogota'`. The canonical
 * list is not enough on its own — Node 20's ICU lists `Asia/Calcutta` and not `Asia/Kolkata` — so a name `Intl`
 * resolves through the same database's links is a zone too. An offset (`+05:00`) is not a zone: it has no DST rules.
 */
export function isSupportedTimeZone(tz: unknown): tz is string {
  if (typeof tz !== 'string' || tz.length === 0) return false;
  if (supportedTimeZones().has(tz)) return true;
  return /^[A-Za-z]/.test(tz) && canonicalTimeZone(tz) !== undefined;
}

/** The canonical name `Intl` resolves `tz` to (an alias such as `US/Eastern`), or undefined when it knows none. */
export function canonicalTimeZone(tz: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** The zone's UTC offset at `atMs`, in ms (New York in winter: −18,000,000). Whole seconds only. */
export function utcOffsetMs(tz: string, atMs: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(tz).formatToParts(new Date(atMs))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const wall = Date.UTC(
    parts['year'] ?? 0,
    (parts['month'] ?? 1) - 1,
    parts['day'] ?? 1,
    parts['hour'] ?? 0,
    parts['minute'] ?? 0,
    parts['second'] ?? 0,
  );
  return wall - Math.floor(atMs / 1000) * 1000;
}
