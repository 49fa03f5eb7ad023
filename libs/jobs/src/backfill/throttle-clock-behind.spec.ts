import { frozenClock } from '../testing/frozen-clock';
import { throttle, throttleWaitMs } from './throttle';

/**
 * A page's start is checkpointed with the clock of the worker that ran it: the worker that resumes the pass may read a
 * clock behind it (another host, an NTP step back), so "now" is before the page began. The pause is still one
 * interval at most — never the interval plus however far the clocks disagree.
 */
describe('the backfill throttle on a clock behind the page it paces', () => {
  it('waits one interval at most when the previous page began "in the future"', () => {
    const hour = 3_600_000;
    expect(throttleWaitMs(5, 10 * hour, 9 * hour)).toBe(200);
    expect(throttleWaitMs(0.5, 1_001, 1_000)).toBe(2_000);
  });

  it('a resumed pass whose checkpoint came from a clock an hour ahead reads its next page after 1/rate', async () => {
    const clock = frozenClock();
    const startedOnAnotherHost = clock.now() + 3_600_000;
    let done = false;
    const waiting = throttle(clock, 4, startedOnAnotherHost, new AbortController().signal).then(
      () => (done = true),
    );
    await clock.advance(250);
    await Promise.resolve();
    expect(done).toBe(true);
    await waiting;
    expect(clock.pending()).toBe(0);
  });
});
