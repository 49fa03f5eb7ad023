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

/** The longest one frame line may be (a frame of a bundled or eval'd file can be a whole line of code). */
const MAX_FRAME_LENGTH = 400;

/** The most stack frames a stored failure keeps: the top of the stack is where the job went wrong. */
export const FAILURE_STACK_FRAMES = 20;

/**
 * What a failed attempt stores as `lastError`: {@link renderError}'s line (with `suffix`, a terminal verdict, kept
 * whole after it), then — when the thrown value is an Error carrying a stack — its frames (`    at …` lines), at most
 * {@link FAILURE_STACK_FRAMES}, one per line. `inspectJob` reads the first line as the message and the rest as the
 * stack. Bounded by `max` as a whole: the line first, then as many whole frames as fit. Never throws.
 */
export function renderFailure(
  error: unknown,
  suffix = '',
  max: number = ERROR_TEXT_MAX_LENGTH,
): string {
  const head = renderError(error, max - suffix.length) + suffix;
  let text = head;
  for (const frame of stackFrames(error)) {
    if (text.length + 1 + frame.length > max) break;
    text += `\n${frame}`;
  }
  return text;
}

/** The `    at …` lines of an Error's stack (NUL and lone surrogates replaced), none when it has no readable stack. */
function stackFrames(error: unknown): readonly string[] {
  if (typeof error !== 'object' || error === null) return [];
  const stack = read(error, 'stack');
  if (typeof stack !== 'string') return [];
  const frames: string[] = [];
  for (const line of stack.split('\n')) {
    if (!/^\s+at\s/.test(line)) continue;
    frames.push(boundedText(`    ${line.trim()}`, MAX_FRAME_LENGTH));
    if (frames.length === FAILURE_STACK_FRAMES) break;
  }
  return frames;
}
