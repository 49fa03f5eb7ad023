import type { ClaimedJob } from '../driver/job-row';
import { uuidv7 } from '../util/ids';
import { PREFETCH_HORIZON_MS, prefetchBuffer } from './prefetch';

describe('prefetchBuffer', () => {
  const claimed = (n: number): ClaimedJob => ({
    id: uuidv7(n),
    runId: uuidv7(n),
    name: 'batch.job',
    queue: 'q',
    input: { n },
    idempotencyKey: `n:${n}`,
    tenantId: null,
    enqueuedBy: null,
    state: 'running',
    attempt: 1,
    maxAttempts: 3,
    priority: 0,
    runAt: 0,
    createdAt: 0,
    updatedAt: 0,
    workerId: 'w',
    claim: uuidv7(n),
    leaseExpiresAt: 30_000,
    lastError: null,
    progress: null,
    concurrencyKey: null,
    traceparent: null,
    finishedAt: null,
  });

  it('targets nothing until a completion rate is measured, then the rows that start within the horizon', () => {
    const b = prefetchBuffer(10_000);
    expect(b.target('q', 0, 100)).toBe(0);
    for (let i = 0; i < 200; i++) b.completed('q');
    expect(b.target('q', 50, 100)).toBe(0); // the window is not over, and 100 slots turned over twice at most
    // 200 runs in 100 ms: 2 a ms, so 2 × the horizon
    expect(b.target('q', 100, 100)).toBe(2 * PREFETCH_HORIZON_MS);
    // a long quiet spell starts over from what it measured: nothing
    expect(b.target('q', 100 + 60_000, 100)).toBe(0);
  });

  it('takes a rate rising within its window at once, once every slot turned over three times', () => {
    const b = prefetchBuffer(10_000);
    expect(b.target('q', 0, 10)).toBe(0);
    // a burst after the quiet spell: 29 runs of 10 slots in 20 ms are not three turnovers of each slot yet
    for (let i = 0; i < 29; i++) b.completed('q');
    expect(b.target('q', 20, 10)).toBe(0);
    b.completed('q');
    // 30 runs in 20 ms: 1.5 a ms, taken before the window's end
    expect(b.target('q', 20, 10)).toBe(Math.floor(1.5 * PREFETCH_HORIZON_MS));
    // a window shorter than 10 ms measures nothing early, however many runs ended in it
    const c = prefetchBuffer(10_000);
    c.target('q', 0, 10);
    for (let i = 0; i < 100; i++) c.completed('q');
    expect(c.target('q', 9, 10)).toBe(0);
  });

  it('does not take ten slow runs ending together for a rate', () => {
    const b = prefetchBuffer(10_000);
    b.target('q', 0, 10);
    for (let i = 0; i < 10; i++) b.completed('q');
    expect(b.target('q', 15, 10)).toBe(0);
    expect(b.target('q', 60, 10)).toBe(0);
  });

  it('keeps an early rate when it falls back within the window, and averages it at the window end', () => {
    const b = prefetchBuffer(10_000);
    b.target('q', 0, 10);
    for (let i = 0; i < 40; i++) b.completed('q');
    expect(b.target('q', 10, 10)).toBe(4 * PREFETCH_HORIZON_MS); // 40 runs in 10 ms
    // nothing more ends: the rate measured at 50 ms (0.8 a ms) is lower and not taken before the window ends
    expect(b.target('q', 50, 10)).toBe(4 * PREFETCH_HORIZON_MS);
    // at the window's end: (4 + 40 / 100) / 2 = 2.2 a ms
    expect(b.target('q', 100, 10)).toBe(Math.floor(2.2 * PREFETCH_HORIZON_MS));
  });

  it('hands out held rows in claim order, and moves the stale ones aside instead', () => {
    const b = prefetchBuffer(1_000);
    b.hold([claimed(1), claimed(2)], 0);
    b.hold([claimed(3)], 900);
    expect(b.size()).toBe(3);
    const stale: ClaimedJob[] = [];
    expect(b.next('q', 1_500, stale)?.input).toEqual({ n: 3 });
    expect(stale).toHaveLength(2);
    b.hold([claimed(4), claimed(5)], 2_000);
    expect(b.takeStale(2_500)).toEqual([]);
    expect(b.takeStale(3_000)).toHaveLength(2);
    b.hold([claimed(6)], 3_000);
    expect(b.takeAll()).toHaveLength(1);
    expect(b.size()).toBe(0);
  });

  it('starts a held row only while younger than maxAgeMs: one exactly that old goes back', () => {
    const b = prefetchBuffer(1_000);
    b.hold([claimed(1)], 0);
    b.hold([claimed(2)], 1);
    const stale: ClaimedJob[] = [];
    expect(b.next('q', 1_000, stale)?.input).toEqual({ n: 2 });
    expect(stale.map((row) => row.input)).toEqual([{ n: 1 }]);
  });

  it('keeps each held row with its own age once the taken ones are compacted away', () => {
    const b = prefetchBuffer(1_000);
    // 70 rows claimed at 0, then 30 at 500; starting 65 of them compacts the buffer
    b.hold(
      Array.from({ length: 70 }, (_, i) => claimed(i + 1)),
      0,
    );
    b.hold(
      Array.from({ length: 30 }, (_, i) => claimed(i + 71)),
      500,
    );
    const stale: ClaimedJob[] = [];
    for (let i = 1; i <= 65; i++) expect(b.next('q', 100, stale)?.input).toEqual({ n: i });
    expect(stale).toEqual([]);
    expect(b.held('q')).toBe(35);
    // at 1,200 the rows of 0 are stale, those of 500 are not
    expect(b.takeStale(1_200).map((row) => row.input)).toEqual(
      [66, 67, 68, 69, 70].map((n) => ({ n })),
    );
    expect(b.next('q', 1_200, stale)?.input).toEqual({ n: 71 });
    expect(stale).toEqual([]);
  });
});
