import { MAX_JSON_DEPTH } from './bounds';

/** One object or array being walked: its members, and the next one to look at. */
interface Frame {
  readonly value: object;
  readonly path: string;
  /** The object's own enumerable keys; null for an array. */
  readonly keys: readonly string[] | null;
  next: number;
}

/** Why a scalar (anything but a non-null object) is not JSON, or undefined. */
function scalarProblem(value: unknown, at: string): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${at} is ${String(value)}`;
    case 'undefined':
      return `${at} is undefined`;
    case 'bigint':
      return `${at} is a BigInt`;
    case 'function':
    case 'symbol':
      return `${at} is a ${typeof value}`;
    default:
      return undefined;
  }
}

/**
 * Why `value` is not a JSON value every driver stores and reads back unchanged, or `undefined` when it is. Refuses
 * what `JSON.stringify` would silently change — `undefined` (outside object members, where it means "absent"),
 * functions, symbols, BigInt, non-finite numbers, Dates, Maps, Sets, class instances, cycles — and nesting deeper than
 * `maxDepth` (default {@link MAX_JSON_DEPTH}). The walk is a loop over an explicit stack, so no value, however deep,
 * can overflow the call stack; it stops at the first problem. The one change JSON makes that is not refused: `-0` is
 * written, and read back, as `0`.
 */
export function jsonProblem(value: unknown, maxDepth: number = MAX_JSON_DEPTH): string | undefined {
  if (maxDepth >= 1 && isFlatJson(value)) return undefined;
  const stack: Frame[] = [];
  const open = new Set<object>();

  const enter = (item: unknown, path: string): string | undefined => {
    const at = path || 'value';
    if (typeof item !== 'object' || item === null) return scalarProblem(item, at);
    if (open.has(item)) return `${at} is a cycle`;
    if (stack.length >= maxDepth) return `${at} is nested deeper than ${maxDepth} levels`;
    let keys: readonly string[] | null = null;
    if (!Array.isArray(item)) {
      const proto = Object.getPrototypeOf(item) as unknown;
      if (proto !== Object.prototype && proto !== null) {
        const name = (item as { constructor?: { name?: unknown } }).constructor?.name;
        return `${at} is a ${typeof name === 'string' && name ? name : 'object'}`;
      }
      keys = Object.keys(item);
    }
    stack.push({ value: item, path, keys, next: 0 });
    open.add(item);
    return undefined;
  };

  let problem = enter(value, '');
  while (problem === undefined && stack.length > 0) {
    const top = stack[stack.length - 1] as Frame;
    const length = top.keys === null ? (top.value as unknown[]).length : top.keys.length;
    if (top.next >= length) {
      open.delete(top.value);
      stack.pop();
      continue;
    }
    const index = top.next++;
    if (top.keys === null) {
      problem = enter((top.value as unknown[])[index], `${top.path}[${index}]`);
    } else {
      const key = top.keys[index] as string;
      const member = (top.value as Record<string, unknown>)[key];
      // an absent member: JSON drops it, and reading it back gives undefined too
      if (member !== undefined) problem = enter(member, top.path ? `${top.path}.${key}` : key);
    }
  }
  return problem;
}

/**
 * Whether `value` is a plain object whose members are all strings, booleans, null, finite numbers or absent: JSON at
 * one level, answered without the walk's stack and cycle set (most job inputs are such). Anything else — a nested
 * member, a number that is not finite, another prototype — is left to the walk, which names the problem.
 */
function isFlatJson(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  // for…in with an own-key test visits what Object.keys lists, without allocating that array on every call
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const member = (value as Record<string, unknown>)[key];
    switch (typeof member) {
      case 'string':
      case 'boolean':
      case 'undefined':
        continue;
      case 'number':
        if (Number.isFinite(member)) continue;
        return false;
      default:
        if (member === null) continue;
        return false;
    }
  }
  return true;
}
