import { frozenClock } from '../testing/frozen-clock';
import { checkedRate, DEFAULT_BACKFILL_RATE, throttle, throttleWaitMs } from './throttle';

describe('the backfill throttle', () => {
  it('spaces page starts 1/rate seconds apart, counting the time the page itself took', () => {
    expect(throttleWaitMs(5, 1_000, 1_000)).toBe(200);
    expect(throttleWaitMs(5, 1_000, 1_150)).toBe(50);
    expect(throttleWaitMs(5, 1_000, 1_300)).toBe(0); // a page slower than the rate waits for nothing
    expect(throttleWaitMs(0.5, 0, 0)).toBe(2_000);
    expect(checkedRate('r', undefined)).toBe(DEFAULT_BACKFILL_RATE);
  });

  it('waits on the clock it is given: nothing resolves until the clock reaches the interval', async () => {
    const clock = frozenClock();
    const started = clock.now();
    let done = false;
    const waiting = throttle(clock, 4, started, new AbortController().signal).then(
      () => (done = true),
    );
    await clock.advance(249);
    expect(done).toBe(false);
    await clock.advance(1);
    await waiting;
    expect(done).toBe(true);
    expect(clock.pending()).toBe(0);
  });

  it("unwinds at once on the run's cancellation, leaving no timer armed", async () => {
    const clock = frozenClock();
    const run = new AbortController();
    const waiting = throttle(clock, 0.001, clock.now(), run.signal);
    expect(clock.pending()).toBe(1);
    run.abort('cancelled by an operator');
    await expect(waiting).rejects.toMatchObject({ code: 'X_ABORTED' });
    expect(clock.pending()).toBe(0);
  });

  it('unwinds with the signal’s own error (a drain, a deadline), and refuses to start when already aborted', async () => {
    const clock = frozenClock();
    const run = new AbortController();
    const drained = Object.assign(new Error('draining'), { code: 'X_DRAINING' });
    const waiting = throttle(clock, 1, clock.now(), run.signal);
    run.abort(drained);
    await expect(waiting).rejects.toBe(drained);
    await expect(throttle(clock, 1, clock.now(), run.signal)).rejects.toBe(drained);
    expect(clock.pending()).toBe(0);
  });

  it('refuses an aborted run even when the interval has already passed: no page is read after the abort', async () => {
    const clock = frozenClock();
    const run = new AbortController();
    run.abort('cancelled by an operator');
    await expect(throttle(clock, 5, clock.now() - 10_000, run.signal)).rejects.toMatchObject({
      code: 'X_ABORTED',
    });
  });
});
