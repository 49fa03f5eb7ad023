import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { eventsPurgeTarget, EVENTS_PURGE_TARGET, purge } from './purge';

describe('purge()', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('hands every target the one clock reading of the pass, one step per target, targets read per attempt', async () => {
    const clock = frozenClock();
    const seen: [string, number][] = [];
    let reads = 0;
    const sweep = purge({
      name: 'purge.spec.sweep',
      clock,
      targets: () => {
        reads++;
        return ['a', 'b'].map((name) => ({
          name,
          purgeExpired: (nowMs: number) => {
            seen.push([name, nowMs]);
            return Promise.resolve(name.length);
          },
        }));
      },
    });
    h = await runJobs({ jobs: [sweep], clock });
    const start = clock.now();
    const { id } = await sweep.enqueue({});
    await h.settle();
    expect((await h.driver.get(id))?.state).toBe('done');
    expect(seen).toEqual([
      ['a', start],
      ['b', start],
    ]);
    expect(reads).toBe(1);
    expect((await h.driver.steps.load(id)).map((s) => s.name)).toEqual([
      'clock',
      'purge:a',
      'purge:b',
    ]);
  });

  it('two targets under one name: X_INVARIANT before the first delete', async () => {
    let calls = 0;
    const target = { name: 'dup', purgeExpired: () => Promise.resolve(++calls) };
    const sweep = purge({
      name: 'purge.spec.dup',
      targets: () => [target, target],
      retry: { attempts: 1 },
    });
    h = await runJobs({ jobs: [sweep] });
    const { id } = await sweep.enqueue({});
    await h.settle();
    const row = await h.driver.get(id);
    expect(row?.state).toBe('dead');
    expect(row?.lastError).toContain('X_INVARIANT');
    expect(calls).toBe(0);
  });

  it('eventsPurgeTarget is the bus under EVENTS_PURGE_TARGET, answering what the bus removed', async () => {
    const target = eventsPurgeTarget({ purgeExpired: () => Promise.resolve(3) });
    expect(target.name).toBe(EVENTS_PURGE_TARGET);
    expect(await target.purgeExpired(0)).toBe(3);
  });
});
