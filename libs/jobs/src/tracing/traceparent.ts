/** The three fields of a W3C `traceparent` the row carries (tracestate is not stored). */
export interface TraceparentFields {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lowercase hex digits, not all zero. */
  readonly spanId: string;
  /** The trace flags byte (bit 0: sampled). */
  readonly traceFlags: number;
}

const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
// version-format per the W3C Trace Context spec; a later version may append fields after the flags
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * Formats version 00 of a W3C `traceparent`: `00-<traceId>-<spanId>-<flags>`. Formatted here rather than through
 * `propagation.inject`: with no propagator registered the API's default injects nothing, and the column is W3C
 * whatever propagator the app chose for its HTTP headers. The ids are written in lower case, as W3C requires and
 * {@link parseTraceparent} reads them: the API takes hex of either case as a valid span context (a B3 or Jaeger header
 * in upper case), and such an id stored as given would start the run a fresh trace.
 */
export function formatTraceparent(fields: TraceparentFields): string {
  const flags = (fields.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${fields.traceId.toLowerCase()}-${fields.spanId.toLowerCase()}-${flags}`;
}

/**
 * Parses a stored `traceparent`, or answers undefined for one that is not valid W3C (version ff, an all-zero id,
 * version 00 with trailing fields, wrong case or length): a malformed value starts a fresh trace, never fails a run.
 */
export function parseTraceparent(value: string | null): TraceparentFields | undefined {
  if (value === null) return undefined;
  const match = TRACEPARENT.exec(value);
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === undefined || spanId === undefined || flags === undefined) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, traceFlags: parseInt(flags, 16) };
}
