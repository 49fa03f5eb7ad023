import type { Span } from '@opentelemetry/api';
import { errorCodeOf } from '../errors/jobs-error';
import type { Otel } from './otel';

/** The longest status message a span is given: a message is for reading, the stored `lastError` is the record. */
const MAX_STATUS_MESSAGE = 1_024;

/** One readable line for a thrown value; never throws (a body may throw a revoked Proxy or throwing getters). */
function describe(error: unknown): { type: string; message: string } {
  try {
    const code = errorCodeOf(error);
    if (error instanceof Error) {
      const message = String(error.message);
      return {
        type: code ?? error.name,
        message: code === undefined ? message : `${code}: ${message}`,
      };
    }
    return { type: typeof error, message: String(error) };
  } catch {
    return { type: 'unknown', message: 'thrown value (unreadable)' };
  }
}

/**
 * Marks a span failed: the error recorded as an exception event (its stack when it is an Error), the status ERROR with
 * the error's code and message, `error.type` the code (or the Error's name). Tracing never fails a run: a span or an
 * exporter that throws here is ignored.
 */
export function recordFailure(otel: Otel, span: Span, error: unknown): void {
  try {
    const { type, message } = describe(error);
    span.recordException(error instanceof Error ? error : message);
    span.setAttribute('error.type', type);
    span.setStatus({
      code: otel.SpanStatusCode.ERROR,
      message: message.length > MAX_STATUS_MESSAGE ? message.slice(0, MAX_STATUS_MESSAGE) : message,
    });
  } catch {
    // a span that cannot take the error keeps what it had
  }
}

/** Ends a span, ignoring a span processor that throws on it. */
export function endSpan(span: Span): void {
  try {
    span.end();
  } catch {
    // tracing never fails a run
  }
}
