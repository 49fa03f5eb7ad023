import { job } from '../declare/job';
import { DEFAULT_RETRY, type ResolvedRetryPolicy } from '../declare/retry-policy';
import { t } from '../schema';
import { harnessSlot } from '../../test/harness-slot';
import { registerErrorRetry } from './error-retry';
import { baseDelay, equalJitter, retryDelay, retrySchedule, statedDelay } from './retry-schedule';

const input = t.object({ n: t.number });

/** A seeded generator in [0, 1): jitter tests stay the same on every run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/** An error the way a responder names a wait: a code and `meta.retryAfterSeconds`. */
function rateLimited(code: string, retryAfterSeconds?: number): Error {
  return Object.assign(new Error('slow down'), {
    code,
    meta: retryAfterSeconds === undefined ? {} : { retryAfterSeconds },
  });
}

describe('retrySchedule: the base delays between attempts', () => {
  it('doubles from delay for exponential backoff: one entry per retry', () => {
    expect(retrySchedule({ attempts: 5, backoff: 'exponential', delay: 1000 })).toEqual([
      1000, 2000, 4000, 8000,
    ]);
  });

  it('grows by delay for linear backoff and stays put for fixed', () => {
    expect(retrySchedule({ attempts: 4, backoff: 'linear', delay: 500 })).toEqual([
      500, 1000, 1500,
    ]);
    expect(retrySchedule({ attempts: 3, backoff: 'fixed', delay: 2000 })).toEqual([2000, 2000]);
  });

  it('clamps every delay at maxDelay', () => {
    expect(
      retrySchedule({ attempts: 6, backoff: 'exponential', delay: 1000, maxDelay: 3000 }),
    ).toEqual([1000, 2000, 3000, 3000, 3000]);
    expect(retrySchedule({ attempts: 4, backoff: 'linear', delay: 400, maxDelay: 1000 })).toEqual([
      400, 800, 1000,
    ]);
  });

  it('has no entry for a job with one attempt, and the defaults when none is declared', () => {
    expect(retrySchedule({ attempts: 1 })).toEqual([]);
    expect(retrySchedule({})).toEqual([1000, 2000]);
  });

  it('baseDelay reads an attempt below 1 as the first: never a shorter or a zero wait', () => {
    const policy: ResolvedRetryPolicy = { ...DEFAULT_RETRY, delay: 1000 };
    expect(baseDelay({ ...policy, backoff: 'exponential' }, 0)).toBe(1000);
    expect(baseDelay({ ...policy, backoff: 'linear' }, 0)).toBe(1000);
  });

  it('exponential back-off stays a number however many attempts: delay 0 is 0, any other delay reaches maxDelay', () => {
    const policy: ResolvedRetryPolicy = { ...DEFAULT_RETRY, attempts: 1_000_000 };
    for (const attempt of [1_024, 1_025, 1_026, 999_999]) {
      expect(baseDelay({ ...policy, delay: 0 }, attempt)).toBe(0);
      expect(baseDelay({ ...policy, delay: 1 }, attempt)).toBe(policy.maxDelay);
    }
    expect(retryDelay({ ...policy, delay: 0 }, 1_500)).toBe(0);
  });

  it('refuses a maxDelay below delay at the call, with the declaration code', () => {
    expect(() => retrySchedule({ delay: 5000, maxDelay: 1000 })).toThrow(
      expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }) as Error,
    );
  });
});

describe('jitter', () => {
  it('equal jitter keeps every delay within [d/2, d]', () => {
    const random = seeded(7);
    for (const d of [1, 2, 999, 1000, 4096, 3_600_000]) {
      for (let i = 0; i < 200; i++) {
        const j = equalJitter(d, random);
        expect(j).toBeGreaterThanOrEqual(d / 2);
        expect(j).toBeLessThanOrEqual(d);
      }
    }
    expect(equalJitter(1000, () => 0)).toBe(500);
    expect(equalJitter(1000, () => 0.999_999)).toBe(1000);
  });

  it('retryDelay jitters only when the policy says so', () => {
    const policy: ResolvedRetryPolicy = { ...DEFAULT_RETRY, delay: 1000 };
    expect(retryDelay({ ...policy, jitter: false }, 3, () => 0)).toBe(4000);
    expect(retryDelay({ ...policy, jitter: true }, 3, () => 0)).toBe(2000);
  });

  it('a stated delay is clamped by maxDelay and spread upward by at most 10 %, never past the clamp', () => {
    const policy: ResolvedRetryPolicy = { ...DEFAULT_RETRY, maxDelay: 60_000 };
    expect(statedDelay({ ...policy, jitter: false }, 30_000)).toBe(30_000);
    expect(statedDelay({ ...policy, jitter: false }, 90_000)).toBe(60_000);
    const random = seeded(11);
    for (let i = 0; i < 200; i++) {
      const d = statedDelay(policy, 5_000, random);
      expect(d).toBeGreaterThanOrEqual(5_000);
      expect(d).toBeLessThanOrEqual(5_500);
      expect(statedDelay(policy, 90_000, random)).toBe(60_000);
    }
  });

  it('a stated delay below zero is no delay, never a wait in the past', () => {
    const policy: ResolvedRetryPolicy = { ...DEFAULT_RETRY, maxDelay: 60_000 };
    expect(statedDelay({ ...policy, jitter: false }, -5_000)).toBe(0);
    expect(statedDelay({ ...policy, jitter: true }, -5_000, () => 0.5)).toBe(0);
  });
});

describe('retries through the worker', () => {
  const { start } = harnessSlot();

  registerErrorRetry({ X_TEST_RATE_LIMITED: 'retry-after' });

  it('a retry-after code is retried at the time the responder named, not the backoff', async () => {
    const handle = job({
      name: 'retry.after.named',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 3, delay: 1000, jitter: false },
      run: () => {
        throw rateLimited('X_TEST_RATE_LIMITED', 30);
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    expect(await h.driver.get(id)).toMatchObject({
      state: 'delayed',
      attempt: 1,
      runAt: h.clock.now() + 30_000,
    });
    expect(h.logger.named('jobs.attempt.failed')[0]?.fields).toMatchObject({ retryInMs: 30_000 });
    expect(h.metrics.total('default', 'failed')).toBe(1);
  });

  it('a named retry-after is clamped by maxDelay', async () => {
    const handle = job({
      name: 'retry.after.clamped',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 3, delay: 1000, maxDelay: 10_000, jitter: false },
      run: () => {
        throw rateLimited('X_TEST_RATE_LIMITED', 30);
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    expect((await h.driver.get(id))?.runAt).toBe(h.clock.now() + 10_000);
  });

  it('a named retry-after with jitter on is spread upward, never sooner than named', async () => {
    const handle = job({
      name: 'retry.after.jittered',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 3, delay: 1000 },
      run: () => {
        throw rateLimited('X_TEST_RATE_LIMITED', 30);
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    const wait = ((await h.driver.get(id))?.runAt ?? 0) - h.clock.now();
    expect(wait).toBeGreaterThanOrEqual(30_000);
    expect(wait).toBeLessThanOrEqual(31_000);
  });

  it('a retry-after code that names no wait follows the backoff', async () => {
    const handle = job({
      name: 'retry.after.unnamed',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 3, delay: 2_000, jitter: false },
      run: () => {
        throw rateLimited('X_TEST_RATE_LIMITED');
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    expect((await h.driver.get(id))?.runAt).toBe(h.clock.now() + 2_000);
  });

  it('backs off by the schedule, with equal jitter by default', async () => {
    const handle = job({
      name: 'retry.backoff.jittered',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 3, delay: 8_000 },
      run: () => {
        throw new Error('flaky');
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    const wait = ((await h.driver.get(id))?.runAt ?? 0) - h.clock.now();
    expect(wait).toBeGreaterThanOrEqual(4_000);
    expect(wait).toBeLessThanOrEqual(8_000);
  });

  it('finalAttempt is false until the last attempt, then true', async () => {
    const seen: [number, boolean][] = [];
    const handle = job({
      name: 'retry.final-attempt',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 3, backoff: 'fixed', delay: 1_000, jitter: false },
      run: ({ attempt, finalAttempt }) => {
        seen.push([attempt, finalAttempt]);
        throw new Error('again');
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    await h.advance(1_000);
    await h.advance(1_000);

    expect(seen).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
    expect((await h.driver.get(id))?.state).toBe('dead');
    expect(h.metrics.total('default', 'failed')).toBe(2);
    expect(h.metrics.total('default', 'dead')).toBe(1);
  });
});
