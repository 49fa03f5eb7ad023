import { renderError } from '../runtime/render-error';
import type { LogLevel } from './logger';

/** How a log event is printed: one `key=value` line, or one JSON object per line. */
export type JobsLogFormat = 'text' | 'json';

/** The formats {@link JobsLogFormat} names. */
export const JOBS_LOG_FORMATS: readonly JobsLogFormat[] = ['text', 'json'];

/** Options of {@link formatLogLine} and {@link logRecord}. */
export interface LogFormatOptions {
  /** Add an error's stack (as `stack=…`, newlines escaped — still one line) (default false). */
  readonly stacks?: boolean;
}

/**
 * A character that makes a token need quotes: a space, quote, backslash, `=` or control character (an empty token
 * needs them too). Searched for rather than matched as `^[^…]+$`, whose loop runs over the whole value before the
 * anchor decides: on the 5,000,000-character value of the failures suite, that match threw "Maximum call stack size
 * exceeded" once in a full test run (2026-12-05, `render-error.spec`), never when the spec ran alone. A search for
 * one character keeps no state per character.
 */
const NEEDS_QUOTES = /[\s"\\=\u0000-\u001f\u007f]/;

/**
 * One event as one line: the event name, then `key=value` for each field in order (logfmt). A value with a space, a
 * quote, `=` or a newline is double-quoted with `\"`, `\\`, `\n` escaped, so the line never breaks. An `undefined`
 * field is left out; an array is comma-joined; an object is compact JSON; an error is its code and message. With
 * numeric `attempt` and `maxAttempts`, the two print as `attempt=2/5`.
 */
export function formatLogLine(
  event: string,
  fields: Readonly<Record<string, unknown>> = {},
  options: LogFormatOptions = {},
): string {
  const parts = [event];
  const { attempt, maxAttempts } = fields;
  const folded = typeof attempt === 'number' && typeof maxAttempts === 'number';
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || (folded && key === 'maxAttempts')) continue;
    const text = folded && key === 'attempt' ? `${attempt}/${maxAttempts}` : textOf(value);
    parts.push(`${key}=${quote(text)}`);
    const stack = options.stacks ? stackOf(value) : undefined;
    if (stack !== undefined) parts.push(`${key}Stack=${quote(stack)}`);
  }
  const carried = options.stacks && !('errorStack' in fields) ? carriedStack(fields) : undefined;
  if (carried !== undefined && stackOf(fields.error) === undefined)
    parts.push(`errorStack=${quote(carried)}`);
  return parts.join(' ');
}

/**
 * One event as a flat JSON-ready object: `time` (ISO), `level`, `event`, then every field (an error as its code and
 * message, a bigint as a string). Those first three keys win over a field of the same name.
 */
export function logRecord(
  level: LogLevel,
  event: string,
  fields: Readonly<Record<string, unknown>>,
  nowMs: number,
  options: LogFormatOptions = {},
): Record<string, unknown> {
  const record: Record<string, unknown> = { time: new Date(nowMs).toISOString(), level, event };
  for (const [key, value] of Object.entries(fields)) {
    if (key in record || value === undefined) continue;
    record[key] = jsonOf(value);
    const stack = options.stacks ? stackOf(value) : undefined;
    if (stack !== undefined) record[`${key}Stack`] = stack;
  }
  const carried = options.stacks ? carriedStack(fields) : undefined;
  if (carried !== undefined && !('errorStack' in record)) record.errorStack = carried;
  return record;
}

/** {@link logRecord} as one line of JSON; a value `JSON.stringify` refuses (a cycle) prints as its text instead. */
export function formatLogJson(
  level: LogLevel,
  event: string,
  fields: Readonly<Record<string, unknown>>,
  nowMs: number,
  options: LogFormatOptions = {},
): string {
  const record = logRecord(level, event, fields, nowMs, options);
  try {
    return JSON.stringify(record);
  } catch {
    for (const [key, value] of Object.entries(record)) {
      if (typeof value === 'object' && value !== null) record[key] = textOf(value);
    }
    return JSON.stringify(record);
  }
}

/**
 * An error as one line: `X_CODE: message` (the message alone when it already starts with its code, the name when it
 * is empty) — {@link renderError}, so a message that is not a string or a getter that throws renders instead of
 * throwing, bounded to 8 KB.
 */
export function errorLine(error: Error): string {
  return renderError(error);
}

/**
 * Any thrown value as a log field, never a throw: {@link renderError} (an error's {@link errorLine}, a string as is).
 */
export function logError(error: unknown): string {
  return renderError(error);
}

/** Where {@link withErrorStack} keeps the stack of the error a line's `error` field renders. */
const ERROR_STACK: unique symbol = Symbol('ultimat3.jobs.errorStack');

/**
 * `fields` (whose `error` is the rendered {@link logError} text of `error`) carrying `error`'s stack as well, out of
 * sight: not an enumerable field, so a logger that reads the fields (a recording logger, an app's own) sees the same
 * ones as before, while {@link formatLogLine} and {@link logRecord} print it as `errorStack` when asked for stacks.
 * Answers `fields` itself.
 */
export function withErrorStack<F extends Record<string, unknown>>(fields: F, error: unknown): F {
  const stack = stackOf(error);
  if (stack !== undefined)
    Object.defineProperty(fields, ERROR_STACK, { value: stack, enumerable: false });
  return fields;
}

/** The stack {@link withErrorStack} put on `fields`, printed under `errorStack` unless a field of its own is an error. */
function carriedStack(fields: Readonly<Record<string, unknown>>): string | undefined {
  const stack = (fields as { readonly [ERROR_STACK]?: unknown })[ERROR_STACK];
  return typeof stack === 'string' ? stack : undefined;
}

/** A field as text; a value whose every read throws (a revoked Proxy) renders as such instead of breaking the line. */
function textOf(value: unknown): string {
  try {
    return textOfValue(value);
  } catch {
    return renderError(value);
  }
}

function textOfValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return errorLine(value);
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? '' : textOf(v))).join(',');
  if (typeof value === 'object' && value !== null) {
    try {
      return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
    } catch {
      return String(value);
    }
  }
  return String(value);
}

function jsonOf(value: unknown): unknown {
  try {
    if (value instanceof Error) return errorLine(value);
    if (typeof value === 'bigint') return String(value);
    if (typeof value === 'symbol') return String(value);
    if (Array.isArray(value)) return value.map(jsonOf);
    return value;
  } catch {
    return renderError(value);
  }
}

function quote(text: string): string {
  if (text.length > 0 && !NEEDS_QUOTES.test(text)) return text;
  return `"${text.replace(/[\\"\u0000-\u001f\u007f]/g, escape)}"`;
}

function escape(char: string): string {
  switch (char) {
    case '\\':
      return '\\\\';
    case '"':
      return '\\"';
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    default:
      return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  }
}

function stackOf(value: unknown): string | undefined {
  try {
    return value instanceof Error && typeof value.stack === 'string' ? value.stack : undefined;
  } catch {
    return undefined;
  }
}
