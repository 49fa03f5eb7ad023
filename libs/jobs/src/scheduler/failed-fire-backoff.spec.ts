import { job } from '../declare/job';
import { task } from '../declare/task';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import type { SchedulerState } from './scheduler-state';
import { schedulerRig } from '../../test/memory-scheduler';

const MINUTE = 60_000;
const TICK = 1_000;
const START = Date.UTC(2026, 0, 1);
const report = job({
  name: 'failed-fire-backoff.report',
  input: t.object({ n: t.number.int() }),
  idempotencyKey: ({ n }) => `report:${n}`,
  tenant: 'none',
});

describe('a fire the state fails', () => {
  it('is retried once a tick, not in a loop at the same instant', async () => {
    const { clock, logger, state: inner, start } = schedulerRig(frozenClock(START));
    // the store is down for the first 20 fires; a busy loop spends them all at one instant
    let fires = 0;
    const state: SchedulerState = {
      ...inner,
      fire: (request) => {
        fires += 1;
        return fires <= 20
          ? Promise.reject(new Error('connection terminated'))
          : inner.fire(request);
      },
    };
    const minutely = task({
      name: 'failed-fire-backoff.minutely',
      cron: '* * * * *',
      tz: 'UTC',
      enqueue: () => [[report, { n: 1 }]],
    });
    const scheduler = start({ tasks: [minutely], state, tickIntervalMs: TICK });
    try {
      await clock.advance(MINUTE);
      expect(fires).toBe(1);
      expect(logger.named('jobs.scheduler.task.failed')).toHaveLength(1);
      await clock.advance(TICK);
      expect(fires).toBe(2);
      await clock.advance(TICK);
      expect(fires).toBe(3);
    } finally {
      await scheduler.stop();
    }
  });

  it('reads the watermark back after a fire whose answer was lost once it had landed: no second plan from the old one', async () => {
    const { clock, driver, logger, state: inner, start } = schedulerRig(frozenClock(START));
    let fires = 0;
    const state: SchedulerState = {
      ...inner,
      fire: async (request) => {
        const result = await inner.fire(request);
        if (++fires === 1) throw new Error('connection lost after commit');
        return result;
      },
    };
    const minutely = task({
      name: 'failed-fire-backoff.landed',
      cron: '* * * * *',
      tz: 'UTC',
      enqueue: () => [[report, { n: 2 }]],
    });
    const scheduler = start({ tasks: [minutely], state });
    try {
      await clock.advance(MINUTE + 5 * TICK);
      expect(logger.named('jobs.scheduler.task.failed')).toHaveLength(1);
      expect(logger.named('jobs.scheduler.fire.refused')).toEqual([]);
      expect(fires).toBe(1);
      expect(await driver.introspect.list()).toHaveLength(1);
    } finally {
      await scheduler.stop();
    }
  });
});
