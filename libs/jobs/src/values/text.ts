import { MAX_FREE_TEXT_LENGTH, TRUNCATION_MARKER } from './bounds';

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
const NUL = /\u0000/g;

/** The index of the first lone surrogate of `text`, or -1 when it is well-formed UTF-16. */
export function loneSurrogateAt(text: string): number {
  const match = LONE_SURROGATE.exec(text);
  return match === null ? -1 : match.index;
}

/**
 * Why `value` cannot be an identifier (a key, a tenant, a step name, an actor id), or `undefined` when it can: it must
 * be a non-empty string of at most `max` UTF-16 code units, with no NUL and no lone surrogate. PostgreSQL refuses a
 * NUL in text (22021) and stores a lone surrogate as U+FFFD, so `'sk\ud800'` and `'sk\udbff'` would become one key.
 */
export function identifierProblem(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return `must be a string (got ${describeValue(value)})`;
  if (value.length === 0) return 'must not be empty';
  if (value.length > max) return `is ${value.length} characters long, over the ${max} allowed`;
  const nul = value.indexOf('\u0000');
  if (nul >= 0) return `holds a NUL character at index ${nul}`;
  const lone = loneSurrogateAt(value);
  if (lone >= 0) {
    const unit = value.charCodeAt(lone).toString(16);
    return `is not well-formed UTF-16: a lone surrogate \\u${unit} at index ${lone}`;
  }
  return undefined;
}

/**
 * `text` made storable as free text (an error message, a cancel reason, a progress note): each NUL and each lone
 * surrogate becomes U+FFFD, and text longer than `max` is cut and ends with {@link TRUNCATION_MARKER}, the count of
 * code units cut and `chars]` — at most `max` long in all. A cut never splits a surrogate pair.
 */
export function boundedText(text: string, max: number = MAX_FREE_TEXT_LENGTH): string {
  const clean = wellFormed(text);
  if (clean.length <= max) return clean;
  // the marker's length depends on the count it states, which depends on where the cut falls: settle both
  let keep = max - TRUNCATION_MARKER.length - `${clean.length} chars]`.length;
  const code = clean.charCodeAt(keep - 1);
  if (code >= 0xd800 && code <= 0xdbff) keep -= 1;
  const kept = clean.slice(0, Math.max(0, keep));
  return `${kept}${TRUNCATION_MARKER}${clean.length - kept.length} chars]`;
}

/** `text` with each NUL and each lone surrogate replaced by U+FFFD. */
export function wellFormed(text: string): string {
  const noNul = text.includes('\u0000') ? text.replace(NUL, '\ufffd') : text;
  return loneSurrogateAt(noNul) < 0 ? noNul : noNul.replace(LONE_SURROGATES, '\ufffd');
}

/** A value as an error message shows it: strings quoted and cut, others by type. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  return value === null ? 'null' : typeof value;
}
