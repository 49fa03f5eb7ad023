import { frozenClock } from '../testing/frozen-clock';
import { memoryLeaseLeader, memoryLeaseTable } from './memory-lease-leader';
import type { SchedulerState } from './scheduler-state';
import { schedulerRig } from '../../test/memory-scheduler';
import { tickJob, tickTask } from '../../test/tick-tasks';

const tick = tickJob('stop-twice');
const everySecond = tickTask(tick, 'stop-twice.every-second', '* * * * * *');

/** A leading scheduler whose first fire waits on a gate the test opens. */
async function firing() {
  const { clock, state: inner, start } = schedulerRig(frozenClock());
  const table = memoryLeaseTable({ clock });
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let gated = false;
  const state: SchedulerState = {
    ...inner,
    fire: async (request) => {
      gated = true;
      await gate;
      return inner.fire(request);
    },
  };
  const scheduler = start({
    tasks: [everySecond],
    state,
    leader: memoryLeaseLeader({ table, holderId: 'twice' }),
  });
  await clock.advance(1_000);
  expect(gated).toBe(true);
  return { clock, table, scheduler, open };
}

describe('a second stop() while the first one drains', () => {
  it('answers once the drain is done (round finished, lease released), not at once', async () => {
    const h = await firing();
    const first = h.scheduler.stop();
    let secondDone = false;
    const second = h.scheduler.stop().then(() => {
      secondDone = true;
    });
    await h.clock.flush();
    expect(secondDone).toBe(false); // the round is still enqueueing: the caller must not close the pool yet
    h.open();
    await Promise.all([first, second]);
    expect(h.scheduler.status).toBe('stopped');
    expect(h.table.lease()).toBeUndefined();
  });

  it('answers at its own deadline when the first stop has none', async () => {
    const h = await firing();
    void h.scheduler.stop();
    let secondDone = false;
    const second = h.scheduler.stop({ deadlineMs: 2_000 }).then(() => {
      secondDone = true;
    });
    await h.clock.advance(1_000);
    expect(secondDone).toBe(false);
    await h.clock.advance(1_000);
    await second;
    expect(secondDone).toBe(true);
    h.open();
  });
});
