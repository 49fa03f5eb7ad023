/** A JSON value: what a job input, a step output and a stored result are. */
export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Why a value is not storable JSON: the value contract's check (see `values/json-value.ts`). */
export { jsonProblem } from '../values/json-value';

/**
 * Removes NUL characters, which PostgreSQL's jsonb and text refuse. Free text the queue stores goes through
 * `boundedText` instead, which replaces NUL and lone surrogates with U+FFFD and bounds the length.
 */
export function stripNul(text: string): string {
  return text.includes('\u0000') ? text.replace(/\u0000/g, '') : text;
}
