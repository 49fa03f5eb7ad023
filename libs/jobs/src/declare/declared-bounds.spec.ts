import { codeOf } from '../../test/outcomes';
import { t } from '../schema';
import { MAX_DURATION_MS } from '../values/bounds';
import { job } from './job';
import type { RetryPolicy } from './retry-policy';

let n = 0;
const unique = (): string => `declared-bounds-${++n}`;

const definition = (retry: RetryPolicy) => ({
  name: unique(),
  input: t.object({ id: t.string }),
  idempotencyKey: ({ id }: { id: string }) => id,
  tenant: 'none' as const,
  retry,
});
const declare = (retry: RetryPolicy) => job(definition(retry));

describe('declared retry policy and priority bounds at job()', () => {
  it('accepts a maxDelay equal to the delay: every retry waits exactly that long', () => {
    expect(declare({ delay: 5_000, maxDelay: 5_000 }).retry).toMatchObject({
      delay: 5_000,
      maxDelay: 5_000,
    });
  });

  it('raises the default one-hour ceiling to a longer declared delay instead of refusing it', () => {
    const twoHours = 7_200_000;
    expect(declare({ delay: twoHours }).retry).toMatchObject({
      delay: twoHours,
      maxDelay: twoHours,
    });
    expect(declare({}).retry.maxDelay).toBe(3_600_000);
  });

  it('refuses a maxDelay of 0 even under a delay of 0: the ceiling is at least 1 ms', () => {
    expect(codeOf(() => declare({ delay: 0, maxDelay: 0 }))).toBe('X_JOB_DECLARATION_INVALID');
    expect(declare({ delay: 0, maxDelay: 1 }).retry).toMatchObject({ delay: 0, maxDelay: 1 });
  });

  it('accepts a delay and a ceiling of exactly 100 years, and refuses 1 ms more', () => {
    const policy = declare({ delay: MAX_DURATION_MS, maxDelay: MAX_DURATION_MS }).retry;
    expect(policy).toMatchObject({ delay: MAX_DURATION_MS, maxDelay: MAX_DURATION_MS });
    expect(codeOf(() => declare({ maxDelay: MAX_DURATION_MS + 1 }))).toBe(
      'X_JOB_DECLARATION_INVALID',
    );
  });

  it('accepts a timeout of exactly 100 years, and refuses 1 ms more', () => {
    const h = job({ ...definition({}), timeout: MAX_DURATION_MS });
    expect(h.timeoutMs).toBe(MAX_DURATION_MS);
    expect(codeOf(() => job({ ...definition({}), timeout: MAX_DURATION_MS + 1 }))).toBe(
      'X_JOB_DECLARATION_INVALID',
    );
  });

  it('declares priority 0 when none is given', () => {
    expect(declare({}).priority).toBe(0);
    expect(declare({}).describe().priority).toBe(0);
  });
});
