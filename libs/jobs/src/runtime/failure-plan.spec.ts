import type { ClaimedJob } from '../driver/job-row';
import { claimedAt, coded, fixedRetry as fixed } from '../../test/retry-fixtures';
import { isFinal, planFailure } from './failure-plan';
import { ERROR_TEXT_MAX_LENGTH } from './render-error';

const claimed = (attempt: number, maxAttempts: number): ClaimedJob =>
  claimedAt('plan.job', attempt, maxAttempts);

describe('isFinal: whether a failure of this attempt stops the job', () => {
  it("follows the job's retry policy when it has one, else the row's maxAttempts", () => {
    expect(isFinal(claimed(3, 10), { ...fixed, attempts: 3 })).toBe(true);
    expect(isFinal(claimed(2, 2), { ...fixed, attempts: 3 })).toBe(false);
    expect(isFinal(claimed(2, 2), undefined)).toBe(true);
    expect(isFinal(claimed(1, 2), undefined)).toBe(false);
  });
});

describe('planFailure: what a failed attempt comes to, before anything is written', () => {
  it('retries an unclassified error after the policy back-off', () => {
    expect(planFailure(new Error('boom'), claimed(1, 4), fixed, false, undefined)).toEqual({
      kind: 'retry',
      delayMs: 2_000,
    });
  });

  it('a fractional delay (retry.delay: 1.5, a Retry-After of 1.2345 s, no jitter) is retried after whole milliseconds', () => {
    const fraction = { ...fixed, delay: 1.5, jitter: false };
    expect(planFailure(new Error('boom'), claimed(1, 4), fraction, false, undefined)).toEqual({
      kind: 'retry',
      delayMs: 2,
    });
    const named = coded('X_WEBHOOK_DELIVERY_THROTTLED', { meta: { retryAfterSeconds: 1.2345 } });
    expect(planFailure(named, claimed(1, 4), fraction, false, undefined)).toEqual({
      kind: 'retry',
      delayMs: 1_235,
    });
  });

  it('stops on the final attempt: dead-lettered as attempts-exhausted, the error text without a suffix', () => {
    const plan = planFailure(new Error('boom'), claimed(4, 4), fixed, true, undefined);
    expect(plan).toMatchObject({
      kind: 'stop',
      stop: 'attempts-exhausted',
      deadLetter: true,
      code: undefined,
    });
    if (plan.kind !== 'stop') throw new Error('expected a stop');
    // the line, then the Error's frames (the stack inspectJob shows)
    expect(plan.text).toMatch(/^boom\n {4}at .*failure-plan\.spec\.ts:\d+/);
  });

  it('stops on a terminal code at any attempt, naming the code and the attempt in a suffix kept whole', () => {
    const long = coded('X_VALUE_INVALID', { message: 'x'.repeat(ERROR_TEXT_MAX_LENGTH * 2) });
    const plan = planFailure(long, claimed(1, 4), fixed, false, undefined);
    expect(plan).toMatchObject({ kind: 'stop', stop: 'terminal', code: 'X_VALUE_INVALID' });
    if (plan.kind !== 'stop') throw new Error('expected a stop');
    expect(plan.text.length).toBeLessThanOrEqual(ERROR_TEXT_MAX_LENGTH);
    expect(plan.text.endsWith(' [terminal: X_VALUE_INVALID; attempt 1 of 4]')).toBe(true);
  });

  it('drops rather than dead-letters when the policy keeps no dead letters', () => {
    const plan = planFailure(
      new Error('boom'),
      claimed(4, 4),
      { ...fixed, deadLetter: false },
      true,
      undefined,
    );
    expect(plan).toMatchObject({ kind: 'stop', deadLetter: false });
  });

  it('a wait an error names is read only for a retry-after code: any other error follows the back-off', () => {
    const named = coded('X_TEST_UNCLASSIFIED', { meta: { retryAfterSeconds: 30 } });
    expect(planFailure(named, claimed(1, 4), fixed, false, undefined)).toEqual({
      kind: 'retry',
      delayMs: 2_000,
    });
  });

  it('backs a row of a job this process does not know off exponentially from 1 s, with jitter', () => {
    const half = (): number => 0.5;
    // attempt 2: base 2,000 ms; equal jitter at 0.5 is 1,000 + 500
    expect(planFailure(new Error('boom'), claimed(2, 5), undefined, false, half)).toEqual({
      kind: 'retry',
      delayMs: 1_500,
    });
  });

  it('caps that back-off at an hour', () => {
    // attempt 20: base 1,000 × 2^19 ms, clamped to 3,600,000; equal jitter at 0.5 is 1,800,000 + 900,000
    expect(planFailure(new Error('boom'), claimed(20, 30), undefined, false, () => 0.5)).toEqual({
      kind: 'retry',
      delayMs: 2_700_000,
    });
  });

  it('dead-letters the final failure of a row whose job this process does not know', () => {
    const plan = planFailure(new Error('boom'), claimed(5, 5), undefined, true, undefined);
    expect(plan).toMatchObject({ kind: 'stop', stop: 'attempts-exhausted', deadLetter: true });
  });
});
