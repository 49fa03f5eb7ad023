/** A duration: milliseconds as a number, or a string such as `'250ms'`, `'10s'`, `'5m'`, `'2h'`, `'3d'`, `'1w'`. */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h' | 'd' | 'w'}`;

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const PATTERN = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/;

/** The forms {@link parseDuration} accepts, worded for an error message. */
export const DURATION_FORMS =
  "a number of milliseconds (0 or more) or a string '<number><unit>' with unit ms, s, m, h, d or w and no space — '250ms', '10s', '1.5h', '3d'";

/** `value` as an error message shows it: strings quoted, so `'2 days'` reads as the string it was. */
export function describeDurationValue(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** Milliseconds in `d`, or `undefined` when `d` is not a duration (NaN, Infinity, negative, an unknown unit). */
export function parseDuration(d: unknown): number | undefined {
  if (typeof d === 'number') return Number.isFinite(d) && d >= 0 ? d : undefined;
  if (typeof d !== 'string') return undefined;
  const m = PATTERN.exec(d.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? Number.NaN);
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}
