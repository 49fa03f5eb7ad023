import { JobTimeoutError } from '../errors/runtime-errors';
import { ODD_THROWS } from '../testing/conformance/failures.suite';
import { formatLogJson, formatLogLine, logError } from '../util/log-format';
import {
  ERROR_TEXT_MAX_LENGTH,
  FAILURE_STACK_FRAMES,
  isThrownInstance,
  renderError,
  renderFailure,
} from './render-error';

describe('renderError', () => {
  it.each(ODD_THROWS.map((c) => [c.name, c] as const))(
    '%s: renders readably, bounded, without throwing',
    (_name, odd) => {
      const text = renderError(odd.make());
      expect(text.length).toBeLessThanOrEqual(ERROR_TEXT_MAX_LENGTH);
      expect(text).toMatch(odd.says);
      expect(text).not.toMatch(/\u0000/);
    },
  );

  it('renders an error as its code and message, the message alone when it starts with the code', () => {
    expect(renderError(new Error('plain'))).toBe('plain');
    expect(renderError(Object.assign(new Error('declined'), { code: 'CARD' }))).toBe(
      'CARD: declined',
    );
    const timeout = new JobTimeoutError('Job "x" attempt', 5);
    expect(renderError(timeout)).toBe(`X_JOB_TIMEOUT: ${timeout.message}`);
    expect(renderError(new TypeError(''))).toBe('TypeError');
  });

  it('renders values that are not errors by type', () => {
    expect(renderError('as is')).toBe('as is');
    expect(renderError(12n)).toBe('12n');
    expect(renderError(7)).toBe('7');
    expect(renderError(Symbol('odd'))).toBe('Symbol(odd)');
    expect(renderError(undefined)).toBe('thrown undefined');
    expect(renderError({ reason: 'declined', cents: 10n })).toBe(
      'thrown object: {"reason":"declined","cents":"10n"}',
    );
    expect(renderError(Object.create(null))).toBe('thrown object: {}');
    expect(renderError(function named() {})).toBe('thrown function named');
    expect(
      renderError({
        toString() {
          return 'custom text';
        },
      }),
    ).toBe('thrown object: custom text');
  });

  it('cuts long text with a marker stating how much, never splitting a surrogate pair', () => {
    const text = renderError('😀'.repeat(10_000));
    expect(text.length).toBeLessThanOrEqual(ERROR_TEXT_MAX_LENGTH);
    expect(text).toMatch(/… \[truncated \d+ chars\]$/);
    expect(text.replace(/… \[truncated \d+ chars\]$/, '')).toMatch(/^(😀)+$/);
    expect(renderError('abcdef', 5 + '… [truncated 99 chars]'.length).length).toBeLessThanOrEqual(
      5 + '… [truncated 99 chars]'.length,
    );
  });

  it('isThrownInstance answers false for a revoked Proxy instead of throwing', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(isThrownInstance(proxy, Error)).toBe(false);
    expect(isThrownInstance(new TypeError('x'), Error)).toBe(true);
  });
});

describe('the log path on values of any shape', () => {
  it.each(ODD_THROWS.map((c) => [c.name, c] as const))(
    '%s: logError, the text line and the JSON line all render',
    (_name, odd) => {
      const value = odd.make();
      expect(logError(value)).toMatch(odd.says);
      const fields = { error: value, nested: [value], job: 'j' };
      expect(() => formatLogLine('jobs.attempt.failed', fields, { stacks: true })).not.toThrow();
      const json = formatLogJson('error', 'jobs.attempt.failed', fields, 0, { stacks: true });
      expect(JSON.parse(json)).toMatchObject({ event: 'jobs.attempt.failed', job: 'j' });
    },
  );
});

describe('renderFailure', () => {
  function thrownAt(depth: number): Error {
    return depth === 0 ? new Error('deep') : thrownAt(depth - 1);
  }

  it("stores the line, then the Error's frames one per line", () => {
    const text = renderFailure(new Error('card declined'));
    const [first, ...frames] = text.split('\n');
    expect(first).toBe('card declined');
    expect(frames.length).toBeGreaterThan(0);
    expect(frames[0]).toMatch(/^ {4}at .*render-error\.spec\.ts:\d+/);
    for (const frame of frames) expect(frame).toMatch(/^ {4}at /);
  });

  it('keeps a terminal verdict whole on the first line, before the frames', () => {
    const suffix = ' [terminal: X_JOB_TIMEOUT; attempt 1 of 5]';
    const text = renderFailure(new Error('slow'), suffix);
    expect(text.split('\n')[0]).toBe(`slow${suffix}`);
  });

  it(`keeps at most ${FAILURE_STACK_FRAMES} frames, and only whole frames within the bound`, () => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 100;
    try {
      const error = thrownAt(60);
      expect(renderFailure(error).split('\n')).toHaveLength(1 + FAILURE_STACK_FRAMES);
      const tight = renderFailure(error, '', 120);
      expect(tight.length).toBeLessThanOrEqual(120);
      expect(tight.split('\n')[0]).toBe('deep');
      for (const frame of tight.split('\n').slice(1)) expect(frame).toMatch(/^ {4}at .*\d+\)?$/);
    } finally {
      Error.stackTraceLimit = limit;
    }
  });

  it('is the line alone for a value with no stack, and never throws on a hostile one', () => {
    expect(renderFailure('plain words')).toBe('plain words');
    expect(renderFailure({ reason: 'declined' })).toBe('thrown object: {"reason":"declined"}');
    const hostile = Object.assign(new Error('odd'), {});
    Object.defineProperty(hostile, 'stack', {
      get() {
        throw new Error('no stack for you');
      },
    });
    expect(renderFailure(hostile)).toBe('odd');
    for (const odd of ODD_THROWS) {
      const text = renderFailure(odd.make());
      expect(text.length).toBeLessThanOrEqual(ERROR_TEXT_MAX_LENGTH);
      expect(text).toMatch(odd.says);
    }
  });
});
