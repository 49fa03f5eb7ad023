import { errorCodeOf } from '../errors/jobs-error';
import { MAX_FREE_TEXT_LENGTH } from '../values/bounds';
import { boundedText } from '../values/text';

/**
 * The longest error text the failure path stores (`lastError`) or logs: the value contract's free-text bound, 8,192
 * UTF-16 code units with the truncation marker included.
 */
export const ERROR_TEXT_MAX_LENGTH = MAX_FREE_TEXT_LENGTH;

/** What a value renders as when every read of it threw (a revoked Proxy, an object of throwing getters). */
const UNREADABLE = 'thrown object (unreadable: every read of it threw)';

/**
 * Whatever a job body threw, as one bounded, readable line — and it never throws itself. The failure path runs on
 * values nobody vetted: `Object.create(null)` has no `toString`, an object's `toString` or a `.code` getter may throw,
 * a revoked Proxy throws on every read, an Error's `message` may be a number. Each used to throw inside the failure
 * path, so the attempt never settled: the row waited out its lease and ended `LEASE_LAPSED_FINAL_ATTEMPT` with the
 * real error lost.
 *
 * - an Error (or any object with a string `message`): `X_CODE: message` — the message alone when it already starts
 *   with its code, the name when the message is empty;
 * - a string, number or boolean: itself; a bigint `12n`; a symbol `Symbol(odd)`;
 * - any other object: `thrown object: ` and its own `toString()`, else its JSON (`{"reason":"declined"}`);
 * - `thrown undefined`, `thrown null`, `thrown function name`.
 *
 * Then every NUL and lone surrogate becomes U+FFFD (PostgreSQL refuses the one and mangles the other) and text longer
 * than `max` (default {@link ERROR_TEXT_MAX_LENGTH}) is cut, ending `… [truncated N chars]`.
 */
export function renderError(error: unknown, max: number = ERROR_TEXT_MAX_LENGTH): string {
  let text: string;
  try {
    text = describeThrown(error);
  } catch {
    text = UNREADABLE;
  }
  return boundedText(text, max);
}

/**
 * `value instanceof type`, false instead of a throw: `instanceof` reads the prototype, which a revoked Proxy refuses.
 */
export function isThrownInstance<T>(
  value: unknown,
  type: abstract new (...args: never[]) => T,
): value is T {
  try {
    return value instanceof type;
  } catch {
    return false;
  }
}

function describeThrown(error: unknown): string {
  switch (typeof error) {
    case 'string':
      return error;
    case 'undefined':
      return 'thrown undefined';
    case 'bigint':
      return `${error.toString()}n`;
    case 'symbol':
    case 'number':
    case 'boolean':
      return String(error);
    case 'function':
      return `thrown function ${readString(error, 'name') || '(anonymous)'}`;
    default:
      return typeof error === 'object' && error !== null ? describeObject(error) : 'thrown null';
  }
}

/** An Error-like object by its code and message; any other object by its JSON or its own `toString`. */
function describeObject(error: object): string {
  const message = read(error, 'message');
  if (error instanceof Error || typeof message === 'string') {
    const text = message === undefined ? '' : messageText(message);
    const shown = text.length > 0 ? text : readString(error, 'name') || 'Error';
    const code = errorCodeOf(error);
    return code === undefined || shown.startsWith(code) ? shown : `${code}: ${shown}`;
  }
  const json = attempt(() =>
    JSON.stringify(error, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)),
  );
  const own = attempt(() => String(error));
  if (own !== undefined && !own.startsWith('[object ')) return `thrown object: ${own}`;
  if (json !== undefined) return `thrown object: ${json}`;
  return UNREADABLE;
}

/** A message that is not a string (a number, an object) as text, never a throw. */
function messageText(message: unknown): string {
  if (typeof message === 'string') return message;
  try {
    return typeof message === 'object' && message !== null
      ? (JSON.stringify(message) ?? '')
      : String(message);
  } catch {
    return '(unreadable message)';
  }
}

function read(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function readString(value: object, key: string): string {
  const v = read(value, key);
  return typeof v === 'string' ? v : '';
}

function attempt(fn: () => string | undefined): string | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}
