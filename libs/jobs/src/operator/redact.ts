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
