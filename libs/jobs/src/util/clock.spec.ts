import { MAX_TIMER_MS, systemClock } from './clock';

/** The real clock's timers, driven by Jest's fake timers (which fake `Date.now()` alike). */
describe('systemClock', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('fires a wait longer than a Node timer can hold once, when it is due — never after 1 ms', () => {
    const fired: number[] = [];
    const wait = MAX_TIMER_MS * 2 + 5_000; // past two hops: a yearly schedule's kind of wait
    const started = Date.now();
    systemClock.setTimeout(() => fired.push(Date.now() - started), wait);
    jest.advanceTimersByTime(1);
    expect(fired).toEqual([]);
    jest.advanceTimersByTime(MAX_TIMER_MS);
    expect(fired).toEqual([]);
    jest.advanceTimersByTime(MAX_TIMER_MS);
    expect(fired).toEqual([]);
    jest.advanceTimersByTime(wait - 2 * MAX_TIMER_MS - 2);
    expect(fired).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(fired).toEqual([wait]);
    jest.advanceTimersByTime(MAX_TIMER_MS * 3);
    expect(fired).toEqual([wait]);
  });

  it('cancels a long wait in any of its hops', () => {
    let fired = 0;
    const timer = systemClock.setTimeout(() => void fired++, MAX_TIMER_MS + 10);
    jest.advanceTimersByTime(MAX_TIMER_MS + 1); // the second hop is armed
    timer.cancel();
    jest.advanceTimersByTime(MAX_TIMER_MS);
    expect(fired).toBe(0);
  });

  it('fires a short or negative wait as a plain timer would', () => {
    const fired: string[] = [];
    systemClock.setTimeout(() => fired.push('now'), -5);
    systemClock.setTimeout(() => fired.push('10 ms'), 10);
    jest.advanceTimersByTime(0);
    expect(fired).toEqual(['now']);
    jest.advanceTimersByTime(10);
    expect(fired).toEqual(['now', '10 ms']);
    expect(systemClock.now()).toBe(1_000_010);
  });

  it("keeps no process alive: its timers are unref'd, a long wait in every hop", () => {
    const timeouts = (): number =>
      process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    jest.useRealTimers();
    const before = timeouts();
    const short = systemClock.setTimeout(() => undefined, 60_000);
    const long = systemClock.setTimeout(() => undefined, MAX_TIMER_MS + 60_000);
    try {
      expect(timeouts()).toBe(before);
    } finally {
      short.cancel();
      long.cancel();
    }
  });
});
