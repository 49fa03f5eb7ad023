import { setJobsFacade } from '../declare/ambient';
import { directJobsFacade } from '../declare/direct-facade';
import { job } from '../declare/job';
import { task } from '../declare/task';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import type { TaskHandle } from '../declare/task';
import { schedulerRig } from '../../test/memory-scheduler';

const MINUTE = 60_000;
const START = Date.UTC(2026, 0, 1);
const report = job({
  name: 'dispatch.report',
  queue: 'reports',
  input: t.object({ minute: t.number.int().min(0) }),
  idempotencyKey: ({ minute }) => `report:${minute}`,
  tenant: 'none',
});

function harness(tasks: readonly TaskHandle[]) {
  const rig = schedulerRig(frozenClock(START));
  const woken: string[] = [];
  const scheduler = rig.start({ tasks, onEnqueued: (queue) => woken.push(queue) });
  return { ...rig, woken, scheduler };
}

describe('dispatching an occurrence', () => {
  it('keys each row to its occurrence, so a manual fire of the same entries stays a distinct run', async () => {
    const minutely = task({
      name: 'dispatch.minutely',
      cron: '* * * * *',
      tz: 'UTC',
      enqueue: (occurrenceMs) => [[report, { minute: (occurrenceMs - START) / MINUTE }]],
    });
    const h = harness([minutely]);
    const uninstall = setJobsFacade(directJobsFacade({ driver: h.driver, clock: h.clock }));
    try {
      await h.clock.advance(MINUTE);
      const [manual] = await minutely.enqueue({ occurrenceMs: START + MINUTE });
      const rows = await h.driver.introspect.list();
      expect(rows.map((r) => r.idempotencyKey).sort()).toEqual([
        'report:1',
        `task:dispatch.minutely:${START + MINUTE}:0:report:1`,
      ]);
      expect(manual?.deduped).toBe(false);
      expect(h.woken).toEqual(['reports']);
    } finally {
      uninstall();
      await h.scheduler.stop();
    }
  });

  it('passes an occurrence whose entries the job refuses, reports it, and fires the next one', async () => {
    const flaky = task({
      name: 'dispatch.flaky',
      cron: '* * * * *',
      tz: 'UTC',
      enqueue: (occurrenceMs) => [[report, { minute: occurrenceMs === START + MINUTE ? -1 : 2 }]],
    });
    const h = harness([flaky]);
    await h.clock.advance(MINUTE);
    expect(h.logger.named('jobs.scheduler.task.invalid')).toEqual([
      expect.objectContaining({
        level: 'error',
        fields: expect.objectContaining({ occurrenceMs: START + MINUTE }),
      }),
    ]);
    expect(await h.state.load([flaky.name])).toEqual(new Map([[flaky.name, START + MINUTE]]));
    await h.clock.advance(MINUTE);
    expect((await h.driver.introspect.list()).map((r) => r.input)).toEqual([{ minute: 2 }]);
    await h.scheduler.stop();
  });
});
