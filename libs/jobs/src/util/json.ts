/** A JSON value: what a job input, a step output and a stored result are. */
export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Why `value` is not storable as JSON, or `undefined` when it is. Refuses what `JSON.stringify` would silently change:
 * `undefined` (outside object members), functions, symbols, BigInt, non-finite numbers, Dates, Maps, Sets, class
 * instances and cycles. A value must round-trip unchanged, or a replay would see a different value than the first run.
 */
export function jsonProblem(
  value: unknown,
  path = '',
  seen = new Set<object>(),
): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${path || 'value'} is ${String(value)}`;
    case 'undefined':
      return `${path || 'value'} is undefined`;
    case 'bigint':
      return `${path || 'value'} is a BigInt`;
    case 'function':
    case 'symbol':
      return `${path || 'value'} is a ${typeof value}`;
  }
  if (value === null) return undefined;
  const obj = value as object;
  if (seen.has(obj)) return `${path || 'value'} is a cycle`;
  seen.add(obj);
  try {
    if (Array.isArray(obj)) {
      for (let i = 0; i < obj.length; i++) {
        const p = jsonProblem(obj[i], `${path}[${i}]`, seen);
        if (p) return p;
      }
      return undefined;
    }
    const proto = Object.getPrototypeOf(obj) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      const name = (obj as { constructor?: { name?: string } }).constructor?.name ?? 'object';
      return `${path || 'value'} is a ${name}`;
    }
    for (const [k, v] of Object.entries(obj)) {
      if (v === undefined) continue; // an absent member: JSON drops it, and reading it back gives undefined too
      const p = jsonProblem(v, path ? `${path}.${k}` : k, seen);
      if (p) return p;
    }
    return undefined;
  } finally {
    seen.delete(obj);
  }
}

/**
 * Removes NUL characters, which PostgreSQL's jsonb and text refuse: a NUL in an error message must never make a
 * failure write fail and the job redeliver forever.
 */
export function stripNul(text: string): string {
  return text.includes('\u0000') ? text.replace(/\u0000/g, '') : text;
}
