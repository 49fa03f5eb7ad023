import type { ClaimedJob } from '../driver/job-row';
import { claimedAt, coded, fixedRetry as fixed } from '../../test/retry-fixtures';
import {
  errorRetryOf,
  registerErrorRetry,
  retryAfterSecondsOf,
  type ErrorRetryClass,
} from './error-retry';
import { planFailure } from './failure-plan';

const claimed = (attempt: number, maxAttempts: number): ClaimedJob =>
  claimedAt('error-retry.job', attempt, maxAttempts);

// The table is process-wide (one per spec file under jest): this file's app codes.
registerErrorRetry({ X_TEST_THROTTLED: 'retry-after', X_TEST_REFUSED: 'terminal' });

/** What `registerErrorRetry(table)` throws, or `undefined`. */
function refusalOf(table: Readonly<Record<string, unknown>>): unknown {
  try {
    registerErrorRetry(table as Readonly<Record<string, ErrorRetryClass>>);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('errorRetryOf: how a thrown code is retried', () => {
  it("reads the package's classes and the app's registrations; an unregistered code or none is unclassified", () => {
    expect(errorRetryOf(coded('X_JOB_TIMEOUT'))).toBe('retryable');
    expect(errorRetryOf(coded('X_DRAINING'))).toBe('retryable');
    expect(errorRetryOf(coded('X_JOB_TENANT_MISMATCH'))).toBe('terminal');
    expect(errorRetryOf(coded('X_WEBHOOK_DELIVERY_THROTTLED'))).toBe('retry-after');
    expect(errorRetryOf(coded('X_EXPORT_ROW_INVALID'))).toBe('terminal');
    expect(errorRetryOf(coded('X_TEST_THROTTLED'))).toBe('retry-after');
    expect(errorRetryOf(coded('X_TEST_REFUSED'))).toBe('terminal');
    expect(errorRetryOf(coded('X_TEST_NEVER_REGISTERED'))).toBeUndefined();
    expect(errorRetryOf(new Error('no code'))).toBeUndefined();
  });

  it('a code spelled like an Object.prototype member is an app code: unclassified until registered', () => {
    expect(errorRetryOf(coded('toString'))).toBeUndefined();
    expect(errorRetryOf(coded('__proto__'))).toBeUndefined();
    expect(refusalOf({ constructor: 'terminal' })).toBeUndefined();
    expect(errorRetryOf(coded('constructor'))).toBe('terminal');
    const plan = planFailure(coded('toString'), claimed(1, 4), fixed, false, undefined);
    expect(plan).toMatchObject({ kind: 'retry', delayMs: 2_000 });
  });

  it('an app code registered terminal dead-letters on its first attempt', () => {
    const plan = planFailure(coded('X_TEST_REFUSED'), claimed(1, 4), fixed, false, undefined);
    expect(plan).toMatchObject({ kind: 'stop', stop: 'terminal', code: 'X_TEST_REFUSED' });
  });
});

describe('registerErrorRetry: what it refuses (X_ERROR_RETRY_INVALID), registering nothing of that table', () => {
  it.each([
    ['X_JOB_TIMEOUT', 'terminal', 'retryable'],
    ['X_DRAINING', 'terminal', 'retryable'],
    ['X_JOB_TENANT_MISMATCH', 'retryable', 'terminal'],
    ['X_WEBHOOK_ENDPOINT_DISABLED', 'retryable', 'terminal'],
  ] as const)('a code the package classifies itself: %s as %s', (code, cls, kept) => {
    expect(refusalOf({ X_TEST_ALONGSIDE: 'terminal', [code]: cls })).toMatchObject({
      code: 'X_ERROR_RETRY_INVALID',
      meta: { code },
    });
    expect(errorRetryOf(coded(code))).toBe(kept);
    expect(errorRetryOf(coded('X_TEST_ALONGSIDE'))).toBeUndefined();
  });

  it('a class that is none of the three, and an empty code', () => {
    for (const cls of ['fatal', 'Terminal', undefined, 1]) {
      expect(refusalOf({ X_TEST_ODD: cls })).toMatchObject({ code: 'X_ERROR_RETRY_INVALID' });
    }
    expect(refusalOf({ '': 'terminal' })).toMatchObject({ code: 'X_ERROR_RETRY_INVALID' });
    expect(errorRetryOf(coded('X_TEST_ODD'))).toBeUndefined();
  });

  it('a code registered again under another class; the same class again is a no-op', () => {
    expect(refusalOf({ X_TEST_THROTTLED: 'retry-after' })).toBeUndefined();
    expect(refusalOf({ X_TEST_THROTTLED: 'terminal' })).toMatchObject({
      code: 'X_ERROR_RETRY_INVALID',
      message: expect.stringContaining("already registered as 'retry-after'"),
    });
    expect(errorRetryOf(coded('X_TEST_THROTTLED'))).toBe('retry-after');
  });
});

describe('retryAfterSecondsOf: the wait an error names', () => {
  it('is a positive finite number, from meta or the top level', () => {
    expect(
      retryAfterSecondsOf(coded('X_TEST_THROTTLED', { meta: { retryAfterSeconds: 30 } })),
    ).toBe(30);
    expect(retryAfterSecondsOf({ retryAfterSeconds: 1.5 })).toBe(1.5);
    for (const named of [Number.POSITIVE_INFINITY, Number.NaN, 0, -5, '30', null]) {
      expect(retryAfterSecondsOf({ meta: { retryAfterSeconds: named } })).toBeUndefined();
    }
  });

  it('a retry-after code naming an infinite wait follows the back-off, not the longest delay', () => {
    const endless = coded('X_TEST_THROTTLED', {
      meta: { retryAfterSeconds: Number.POSITIVE_INFINITY },
    });
    expect(planFailure(endless, claimed(1, 4), fixed, false, undefined)).toEqual({
      kind: 'retry',
      delayMs: 2_000,
    });
  });
});
