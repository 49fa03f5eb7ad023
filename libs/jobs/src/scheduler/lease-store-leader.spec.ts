import { memoryJobDriver } from '../driver/memory';
import { frozenClock } from '../testing/frozen-clock';
import { jobScheduler } from './job-scheduler';
import { leaseStoreLeader } from './lease-store-leader';
import { memorySchedulerState } from './memory-scheduler-state';
import { tickJob, tickTask } from '../../test/tick-tasks';

const tick = tickJob('lease-store');
const everySecond = tickTask(tick, 'lease-store.every-second', '* * * * * *', {
  catchUp: 'run-all',
});

describe('leaseStoreLeader', () => {
  it('elects one scheduler over the driver’s lease store, and hands over on stop', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const state = memorySchedulerState({ driver, clock });
    const [a, b] = ['a', 'b'].map((holderId) =>
      jobScheduler({
        driver,
        state,
        clock,
        tasks: [everySecond],
        leader: leaseStoreLeader({ leases: driver.leases, holderId }),
      }),
    ) as [ReturnType<typeof jobScheduler>, ReturnType<typeof jobScheduler>];
    a.start();
    b.start();
    await clock.advance(5_000);
    expect([a.isLeader(), b.isLeader()]).toEqual([true, false]);
    expect((await driver.leases.holders('x:scheduler')).map((h) => h.holder)).toEqual(['a']);

    await a.stop();
    await clock.advance(10_000);
    expect(b.isLeader()).toBe(true);
    const seconds = (await driver.introspect.list()).map(
      (r) => (r.input as { occurrenceMs: number }).occurrenceMs,
    );
    expect(new Set(seconds).size).toBe(seconds.length);
    expect(seconds).toHaveLength(15);
    await b.stop();
  });
});
