import { frozenClock } from '../testing/frozen-clock';
import type { Clock } from '../util/clock';
import { schedulerRig } from '../../test/memory-scheduler';
import { tickJob, tickTask } from '../../test/tick-tasks';

const START = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const tick = tickJob('wall-clock-step');
const everyMinute = tickTask(tick, 'wall-clock-step.every-minute', '* * * * *');

describe('a wall clock stepped forward (NTP, a host resumed from sleep)', () => {
  it('fires the occurrence it stepped past within one tick, not at the timer armed before the step', async () => {
    // timers run on the frozen (monotonic) clock; `now()` reads the wall clock, which the test steps
    const monotonic = frozenClock(START);
    let stepMs = 0;
    const clock: Clock = {
      now: () => monotonic.now() + stepMs,
      setTimeout: (fn, ms) => monotonic.setTimeout(fn, ms),
    };
    const { state, start } = schedulerRig(clock);
    const scheduler = start({ tasks: [everyMinute], tickIntervalMs: 1_000, renewEveryMs: 10_000 });
    await monotonic.advance(35_000);
    stepMs = 30_000; // the wall clock now reads 00:01:05: the 00:01 occurrence is due
    await monotonic.advance(1_000);
    expect(await state.taskFires()).toEqual([
      expect.objectContaining({ task: everyMinute.name, occurrenceMs: START + MINUTE }),
    ]);
    await scheduler.stop();
  });
});
