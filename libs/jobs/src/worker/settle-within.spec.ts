import { frozenClock } from '../testing/frozen-clock';
import { gate } from '../testing/test-kit';
import { settleWithin } from './settle-within';

const T0 = Date.UTC(2026, 0, 1);

describe('settleWithin', () => {
  it('without a deadline, waits as long as the work takes', async () => {
    const clock = frozenClock(T0);
    const g = gate();
    let settled: boolean | undefined;
    void settleWithin(g.promise, undefined, clock).then((s) => (settled = s));
    await clock.advance(3_600_000);
    expect(settled).toBeUndefined();
    g.open();
    await clock.flush();
    expect(settled).toBe(true);
  });

  it('answers false at the deadline, and true (its timer cancelled) when the work settles first', async () => {
    const clock = frozenClock(T0);
    let late: boolean | undefined;
    void settleWithin(gate().promise, T0 + 500, clock).then((s) => (late = s));
    await clock.advance(499);
    expect(late).toBeUndefined();
    await clock.advance(1);
    expect(late).toBe(false);
    expect(clock.pending()).toBe(0);

    const g = gate();
    const inTime = settleWithin(g.promise, T0 + 10_000, clock);
    g.open();
    await expect(inTime).resolves.toBe(true);
    expect(clock.pending()).toBe(0);
  });

  it('throws the work’s rejection when it settles in time', async () => {
    const clock = frozenClock(T0);
    await expect(settleWithin(Promise.reject(new Error('boom')), T0 + 10, clock)).rejects.toThrow(
      'boom',
    );
    expect(clock.pending()).toBe(0);
  });
});
