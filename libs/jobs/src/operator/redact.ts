import { REDACTED } from '../declare/redaction';
import type { JsonValue } from '../util/json';

/**
 * `value` with every declared path replaced by `'[redacted]'` (`*` matches every key or index at its level). A path
 * that does not reach into the value changes nothing; the value itself is never mutated.
 */
export function redactJson(value: JsonValue, paths: readonly string[]): JsonValue {
  let out = value;
  for (const path of paths) out = redactPath(out, path.split('.'));
  return out;
}

function redactPath(value: JsonValue, segments: readonly string[]): JsonValue {
  if (segments.length === 0) return REDACTED;
  if (typeof value !== 'object' || value === null) return value;
  const [head, ...rest] = segments as [string, ...string[]];
  if (Array.isArray(value)) {
    return value.map((item, i) =>
      head === '*' || head === String(i) ? redactPath(item, rest) : item,
    );
  }
  const copy: Record<string, JsonValue> = { ...value };
  for (const key of Object.keys(copy)) {
    if (head === '*' || head === key) copy[key] = redactPath(copy[key] as JsonValue, rest);
  }
  return copy;
}

/** The shortest redacted value scrubbed from free text: a shorter one would mangle ordinary words and numbers. */
export const MIN_SCRUBBED_LENGTH = 4;

/**
 * The values `paths` reach into `value` — every string and number at a declared path, or under it when the path ends
 * on an object or array — at least {@link MIN_SCRUBBED_LENGTH} characters long, longest first: what
 * {@link scrubText} removes from the texts a run wrote, since a secret leaks through an error message or a step output
 * as easily as through the input (`new Error(\`card ${input.card.number} declined\`)`).
 */
export function redactedValues(value: JsonValue, paths: readonly string[]): string[] {
  const found = new Set<string>();
  for (const path of paths) collectAt(value, path.split('.'), found);
  return [...found]
    .filter((s) => s.length >= MIN_SCRUBBED_LENGTH)
    .sort((a, b) => b.length - a.length);
}

function collectAt(value: JsonValue, segments: readonly string[], found: Set<string>): void {
  if (segments.length === 0) {
    collectLeaves(value, found);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const [head, ...rest] = segments as [string, ...string[]];
  const entries: [string, JsonValue][] = Array.isArray(value)
    ? value.map((item, i) => [String(i), item])
    : Object.entries(value);
  for (const [key, item] of entries) if (head === '*' || head === key) collectAt(item, rest, found);
}

function collectLeaves(value: JsonValue, found: Set<string>): void {
  if (typeof value === 'string') found.add(value);
  else if (typeof value === 'number') found.add(String(value));
  else if (typeof value === 'object' && value !== null) {
    for (const item of Array.isArray(value) ? value : Object.values(value))
      collectLeaves(item, found);
  }
}

/** `text` with every occurrence of each of `secrets` (see {@link redactedValues}) replaced by `'[redacted]'`. */
export function scrubText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/**
 * `value` with {@link scrubText} applied to every string in it, keys included, and every number whose digits show one
 * of `secrets` replaced by `'[redacted]'` (a numeric secret comes back as a number as easily as in a text); never
 * mutated.
 */
export function scrubJson(value: JsonValue, secrets: readonly string[]): JsonValue {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') return scrubText(value, secrets);
  if (typeof value === 'number') {
    const digits = String(value);
    return secrets.some((secret) => digits.includes(secret)) ? REDACTED : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => scrubJson(item, secrets));
  const copy: Record<string, JsonValue> = {};
  for (const [key, item] of Object.entries(value)) {
    // defined, never assigned: a key '__proto__' stays a member
    Object.defineProperty(copy, scrubText(key, secrets), {
      value: scrubJson(item, secrets),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}
