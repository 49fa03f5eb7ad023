import { DEFAULT_RETRY, type ResolvedRetryPolicy } from '../declare/retry-policy';
import type { ClaimedJob } from '../driver/job-row';
import { errorRetryOf, registerErrorRetry, retryAfterSecondsOf } from './error-retry';
import { planFailure } from './failure-plan';

/** The fields of a claimed row the plan reads; the rest are never touched. */
function claimed(attempt: number, maxAttempts: number): ClaimedJob {
  return { name: 'error-retry.job', attempt, maxAttempts } as ClaimedJob;
}

const fixed: ResolvedRetryPolicy = {
  ...DEFAULT_RETRY,
  attempts: 4,
  backoff: 'fixed',
  delay: 2_000,
  jitter: false,
};

const coded = (code: string, extra: object = {}): Error =>
  Object.assign(new Error(`failed with ${code}`), { code }, extra);

// The table is process-wide (one per spec file under jest): this file's app code, and one code the package classifies
// itself that the app classifies again.
registerErrorRetry({ X_TEST_THROTTLED: 'retry-after', X_JOB_TIMEOUT: 'terminal' });

describe('errorRetryOf: how a thrown code is retried', () => {
  it("the app's registration is read first: it can reclassify a code the package classifies itself", () => {
    expect(errorRetryOf(coded('X_JOB_TIMEOUT'))).toBe('terminal');
    expect(errorRetryOf(coded('X_DRAINING'))).toBe('retryable');
    expect(errorRetryOf(coded('X_TEST_THROTTLED'))).toBe('retry-after');
    expect(errorRetryOf(coded('X_TEST_NEVER_REGISTERED'))).toBeUndefined();
    expect(errorRetryOf(new Error('no code'))).toBeUndefined();
  });

  it('a timeout the app made terminal dead-letters on its first attempt', () => {
    const plan = planFailure(coded('X_JOB_TIMEOUT'), claimed(1, 4), fixed, false, undefined);
    expect(plan).toMatchObject({ kind: 'stop', stop: 'terminal', code: 'X_JOB_TIMEOUT' });
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
