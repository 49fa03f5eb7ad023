import { PREFETCH_HORIZON_MS, PREFETCH_MAX, PrefetchRates } from './prefetch-rate';

describe('PrefetchRates', () => {
  it('starts the window of runs that ended before any target at the first target', () => {
    const r = new PrefetchRates();
    for (let i = 0; i < 300; i++) r.completed('q');
    // the window opens now: nothing is measured in it yet
    expect(r.target('q', 1_000, 100)).toBe(0);
    // 300 runs over the 100 ms since: 3 a ms
    expect(r.target('q', 1_100, 100)).toBe(3 * PREFETCH_HORIZON_MS);
  });

  it('averages each window with the last one, and starts over after a long quiet spell', () => {
    const r = new PrefetchRates();
    r.target('q', 0, 100);
    for (let i = 0; i < 200; i++) r.completed('q');
    expect(r.target('q', 100, 100)).toBe(2 * PREFETCH_HORIZON_MS);
    // an empty window halves it: (2 + 0) / 2
    expect(r.target('q', 200, 100)).toBe(PREFETCH_HORIZON_MS);
    for (let i = 0; i < 100; i++) r.completed('q');
    // 100 runs over 2 s of quiet: only what was measured counts, 0.05 a ms
    expect(r.target('q', 2_200, 100)).toBe(Math.floor(0.05 * PREFETCH_HORIZON_MS));
  });

  it('caps the target at PREFETCH_MAX', () => {
    const r = new PrefetchRates();
    r.target('q', 0, 100);
    for (let i = 0; i < 10_000; i++) r.completed('q');
    expect(r.target('q', 100, 100)).toBe(PREFETCH_MAX);
  });

  it('measures each queue on its own', () => {
    const r = new PrefetchRates();
    r.target('a', 0, 10);
    r.target('b', 0, 10);
    for (let i = 0; i < 100; i++) r.completed('a');
    expect([r.target('a', 100, 10), r.target('b', 100, 10)]).toEqual([PREFETCH_HORIZON_MS, 0]);
  });
});

describe('PrefetchRates, its documented bounds', () => {
  it('holds the rows expected to start within 200 ms, at most 1,000 a queue', () => {
    const r = new PrefetchRates();
    r.target('q', 0, 100);
    for (let i = 0; i < 100; i++) r.completed('q');
    // 1 run a ms: the 200 rows that start within the horizon
    expect(r.target('q', 100, 100)).toBe(200);
    const fast = new PrefetchRates();
    fast.target('q', 0, 100);
    for (let i = 0; i < 501; i++) fast.completed('q');
    // 5.01 a ms would be 1,002 rows: the queue holds 1,000
    expect(fast.target('q', 100, 100)).toBe(1_000);
  });

  it('rounds a fractional target down', () => {
    const r = new PrefetchRates();
    r.target('q', 0, 100);
    for (let i = 0; i < 3; i++) r.completed('q');
    // 3 runs over 160 ms: 3.75 rows within the horizon, 3 held
    expect(r.target('q', 160, 100)).toBe(3);
  });

  it('averages a window of exactly ten windows with the last one: only a longer quiet spell starts over', () => {
    const r = new PrefetchRates();
    r.target('q', 0, 100);
    for (let i = 0; i < 200; i++) r.completed('q');
    expect(r.target('q', 100, 100)).toBe(400); // 2 a ms
    for (let i = 0; i < 100; i++) r.completed('q');
    // 100 runs over the next 1,000 ms: (2 + 0.1) / 2 = 1.05 a ms
    expect(r.target('q', 1_100, 100)).toBe(210);
    for (let i = 0; i < 100; i++) r.completed('q');
    // 100 runs over 1,001 ms: what was measured alone, ~0.1 a ms
    expect(r.target('q', 2_101, 100)).toBe(Math.floor((100 / 1_001) * 200));
  });
});
