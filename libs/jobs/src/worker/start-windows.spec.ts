import { frozenClock } from '../testing/frozen-clock';
import { StartWindows } from './start-windows';

describe('StartWindows', () => {
  it('counts a tenant’s starts inside the window only', async () => {
    const clock = frozenClock();
    const windows = new StartWindows(1_000, clock);
    windows.record('a');
    await clock.advance(600);
    windows.record('a');
    windows.record('b');
    expect([windows.count('a'), windows.count('b'), windows.count('c')]).toEqual([2, 1, 0]);
    await clock.advance(400); // the first start of a is now exactly one window old: out
    expect([windows.count('a'), windows.most()]).toEqual([1, 1]);
  });

  it('answers the most starts of any one tenant', async () => {
    const clock = frozenClock();
    const windows = new StartWindows(1_000, clock);
    expect(windows.most()).toBe(0);
    for (let i = 0; i < 3; i++) windows.record('busy');
    windows.record('quiet');
    expect(windows.most()).toBe(3);
    await clock.advance(1_000);
    expect(windows.most()).toBe(0);
  });

  it('forgets tenants it does not meet again: a worker serving 10,000 tenants once each holds none a window later', async () => {
    const clock = frozenClock();
    const windows = new StartWindows(1_000, clock);
    for (let i = 0; i < 10_000; i++) windows.record(`tenant-${i}`);
    expect(windows.size).toBe(10_000);
    await clock.advance(1_000);
    // the tenant read next is another one: its read sweeps those whose starts all expired
    expect(windows.count('someone-else')).toBe(0);
    expect(windows.size).toBe(0);
  });

  it('keeps a tenant whose newest start is still inside the window through the sweep', async () => {
    const clock = frozenClock();
    const windows = new StartWindows(1_000, clock);
    windows.record('old');
    await clock.advance(500);
    windows.record('kept');
    windows.record('old');
    await clock.advance(600);
    expect(windows.count('other')).toBe(0);
    expect([windows.size, windows.count('kept'), windows.count('old')]).toEqual([2, 1, 1]);
  });
});
