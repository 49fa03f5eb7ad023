import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { DueTimers, MAX_DUE_TIMES } from './due-timers';
import { DUE_TIMER_HORIZON_MS } from './worker-options';

const T0 = Date.UTC(2026, 0, 1);

function timers(holding = false): { clock: FrozenClock; timers: DueTimers; passes: number[] } {
  const clock = frozenClock(T0);
  const passes: number[] = [];
  const t = new DueTimers({
    clock,
    floorMs: 100,
    ceilingMs: () => 1_000,
    holdMaxMs: 50,
    holding: () => holding,
    pass: () => passes.push(clock.now() - T0),
  });
  return { clock, timers: t, passes };
}

describe('DueTimers', () => {
  it('arms nothing before start() or after stop()', async () => {
    const { clock, timers: t, passes } = timers();
    t.pollLater();
    t.dueAtTime(T0 + 10);
    expect(clock.pending()).toBe(0);
    t.start();
    t.pollLater();
    t.dueAtTime(T0 + 10);
    expect(clock.pending()).toBe(2);
    t.stop();
    expect(clock.pending()).toBe(0);
    await clock.advance(5_000);
    expect(passes).toEqual([]);
  });

  it('doubles the wait after each empty claim up to the ceiling, and a found row brings back the floor', async () => {
    const { clock, timers: t, passes } = timers();
    t.start();
    for (let i = 0; i < 6; i++) {
      const armed = t.waitMs;
      t.empty();
      await clock.advance(armed);
    }
    // each empty claim arms the current wait, then doubles it: 100, 200, 400, 800, 1000, 1000
    expect(passes).toEqual([100, 300, 700, 1_500, 2_500, 3_500]);
    t.found();
    expect(t.waitMs).toBe(100);
    await clock.advance(100);
    expect(passes.at(-1)).toBe(3_600);
  });

  it('a failed claim doubles the wait before it arms it; a wake resets it to the floor', async () => {
    const { clock, timers: t, passes } = timers();
    t.start();
    t.failed();
    await clock.advance(200);
    expect(passes).toEqual([200]);
    t.failed();
    expect(t.waitMs).toBe(400);
    t.woken();
    expect(t.waitMs).toBe(100);
    // a new arming replaces the armed poll
    t.pollLater();
    await clock.advance(1_000);
    expect(passes).toEqual([200, 300]);
  });

  it('pollLater keeps the armed poll when it fires at most an eighth of the wait earlier, else re-arms it', async () => {
    const { clock, timers: t, passes } = timers();
    t.start();
    t.pollLater();
    // 12 ms later the armed poll (at 100) fires 12 ms before one armed now would: kept, no second timer
    await clock.advance(12);
    t.pollLater();
    expect(clock.pending()).toBe(1);
    await clock.advance(88);
    expect(passes).toEqual([100]);
    // a poll 13 ms early is more than an eighth of the wait: re-armed to the exact wait
    t.pollLater();
    await clock.advance(13);
    t.pollLater();
    await clock.advance(99);
    expect(passes).toEqual([100]);
    await clock.advance(1);
    expect(passes).toEqual([100, 213]);
    // what a claim finds always re-arms to the exact wait
    t.pollLater();
    await clock.advance(5);
    t.found();
    await clock.advance(100);
    expect(passes).toEqual([100, 213, 318]);
  });

  it('while rows are held, no poll is armed further out than holdMaxMs', async () => {
    const { clock, timers: t, passes } = timers(true);
    t.start();
    t.failed();
    t.failed();
    await clock.advance(60);
    expect(passes).toEqual([50]);
  });

  it('gives each due time its own pass, on time, and resets the wait', async () => {
    const { clock, timers: t, passes } = timers();
    t.start();
    t.failed();
    t.failed();
    t.dueAtTime(T0 + 30);
    t.dueAtTime(T0 + 10);
    t.dueAtTime(T0 + 10);
    t.dueAtTime(T0 + DUE_TIMER_HORIZON_MS + 1);
    await clock.advance(35);
    expect(passes).toEqual([10, 30]);
    expect(t.waitMs).toBe(100);
    t.cancelPoll();
    await clock.advance(DUE_TIMER_HORIZON_MS + 10);
    expect(passes).toEqual([10, 30, DUE_TIMER_HORIZON_MS + 1]);
  });

  it('a time days out (a step sleeping 3 days, a retry 30 days out) gets its pass on time, and no pass before it', async () => {
    const { clock, timers: t, passes } = timers();
    const DAY = 86_400_000;
    t.start();
    t.dueAtTime(T0 + 30 * DAY + 7);
    t.dueAtTime(T0 + 3 * DAY + 5);
    // the timer hops a horizon at a time: the clock steps past each hop, and only the due times run a pass
    for (let day = 0; day < 31; day++) await clock.advance(DAY);
    expect(passes).toEqual([3 * DAY + 5, 30 * DAY + 7]);
  });

  it('keeps at most MAX_DUE_TIMES due times, dropping the latest', async () => {
    const { clock, timers: t, passes } = timers();
    t.start();
    for (let i = MAX_DUE_TIMES + 10; i > 0; i--) t.dueAtTime(T0 + i * 1_000);
    await clock.advance((MAX_DUE_TIMES + 20) * 1_000);
    expect(passes).toHaveLength(MAX_DUE_TIMES);
    expect(passes.at(-1)).toBe(MAX_DUE_TIMES * 1_000);
  });

  it('a wake that asks for a sweep gets ONE pass that long after the latest such wake', async () => {
    const { clock, timers: t, passes } = timers();
    t.start();
    t.woken(15);
    expect(clock.pending()).toBe(1);
    await clock.advance(10);
    // a second wake pushes the sweep out instead of arming another timer
    t.woken(15);
    t.woken(5);
    expect(clock.pending()).toBe(1);
    await clock.advance(14);
    expect(passes).toEqual([]);
    await clock.advance(1);
    expect(passes).toEqual([25]);
    expect(clock.pending()).toBe(0);
    // the next wake arms a fresh one
    t.woken(15);
    await clock.advance(15);
    expect(passes).toEqual([25, 40]);
  });

  it('a sweep alone gets its own pass that long after it: a steady stream of them never pushes one out', async () => {
    const { clock, timers: t, passes } = timers();
    t.sweepIn(15);
    expect(clock.pending()).toBe(0);
    t.start();
    // one every 10 ms: each is swept 15 ms after it, where a wake's sweep would wait for the last of them
    for (let i = 0; i < 5; i++) {
      t.sweepIn(15);
      expect(passes).toEqual(Array.from({ length: Math.max(0, i - 1) }, (_, k) => 15 + k * 10));
      await clock.advance(10);
    }
    await clock.advance(10);
    expect(passes).toEqual([15, 25, 35, 45, 55]);
    expect(clock.pending()).toBe(0);
    t.sweepIn(15);
    t.stop();
    await clock.advance(100);
    expect(passes).toHaveLength(5);
  });

  it('a wake without a sweep arms nothing; no sweep before start() or after stop()', async () => {
    const { clock, timers: t, passes } = timers();
    t.woken(15);
    expect(clock.pending()).toBe(0);
    t.start();
    t.woken();
    expect(clock.pending()).toBe(0);
    t.woken(15);
    t.stop();
    expect(clock.pending()).toBe(0);
    await clock.advance(100);
    expect(passes).toEqual([]);
  });
});
