import { JobTimeoutError } from '../errors/runtime-errors';
import { ODD_THROWS } from '../testing/conformance/failures.suite';
import { formatLogJson, formatLogLine, logError } from '../util/log-format';
import { ERROR_TEXT_MAX_LENGTH, isThrownInstance, renderError } from './render-error';

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
