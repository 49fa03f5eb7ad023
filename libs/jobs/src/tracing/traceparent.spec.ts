import { formatTraceparent, parseTraceparent } from './traceparent';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';

describe('traceparent', () => {
  it('formats version 00 with the flags as two hex digits, and parses it back', () => {
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags: 1 })).toBe(
      `00-${TRACE}-${SPAN}-01`,
    );
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags: 0 })).toBe(
      `00-${TRACE}-${SPAN}-00`,
    );
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`)).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      traceFlags: 1,
    });
  });

  it('reads the flags as a hex byte, and writes them back the same', () => {
    for (const [flags, byte] of [
      ['0a', 10],
      ['ff', 255],
      ['10', 16],
    ] as const) {
      expect(parseTraceparent(`00-${TRACE}-${SPAN}-${flags}`)?.traceFlags).toBe(byte);
      expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags: byte })).toBe(
        `00-${TRACE}-${SPAN}-${flags}`,
      );
    }
  });

  it('accepts a later version with trailing fields, reading only the first four', () => {
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-03-later`)).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      traceFlags: 3,
    });
  });

  const invalid: [string, string | null][] = [
    ['null', null],
    ['empty', ''],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 00 with trailing fields', `00-${TRACE}-${SPAN}-01-x`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['an all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['no flags', `00-${TRACE}-${SPAN}`],
  ];
  it.each(invalid)('answers undefined for %s (the run starts a fresh trace)', (_label, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });
});
