/** Strings longer than this are cut in messages, so an issue never carries a whole payload. */
const MAX_QUOTED = 40;

/**
 * Renders a literal value the way messages show it: strings single-quoted (`'a'`), other
 * primitives as written (`1.5`, `NaN`, `null`).
 *
 * @internal
 */
export function quote(value: string | number | boolean | null | undefined | bigint): string {
  if (typeof value === 'string') {
    const cut = value.length > MAX_QUOTED ? `${value.slice(0, MAX_QUOTED)}…` : value;
    return `'${cut.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  }
  if (typeof value === 'bigint') return `${value}n`;
  return String(value);
}

/**
 * Names a received value for a message's `got …` part: primitives are shown (`1.5`, `'abc'`,
 * `null`), other values by kind (`an array`, `an object`, `a function`).
 *
 * @internal
 */
export function describe(value: unknown): string {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return quote(value);
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    default:
      if (value === null) return 'null';
      return Array.isArray(value) ? 'an array' : 'an object';
  }
}

/**
 * `1 item` / `2 items`.
 *
 * @internal
 */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
