import { job } from '../declare/job';
import { task } from '../declare/task';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { schedulerRig } from '../../test/memory-scheduler';

const MINUTE = 60_000;
const START = Date.UTC(2026, 0, 1);
const digest = job({
  name: 'fire-bad-entry.digest',
  queue: 'digests',
  input: t.object({ org: t.string.min(1) }),
  idempotencyKey: ({ org }) => `digest:${org}`,
  tenant: 'none',
});

describe('a scheduler fire with one entry its job refuses', () => {
  it('fires the other entries of the occurrence and reports the bad one alone', async () => {
    const { clock, driver, logger, state, start } = schedulerRig(frozenClock(START));
    const fanOut = task({
      name: 'fire-bad-entry.fan-out',
      cron: '* * * * *',
      tz: 'UTC',
      enqueue: () => [
        [digest, { org: 'a' }],
        [digest, { org: '' }], // the schema refuses an empty org
        [digest, { org: 'c' }],
      ],
    });
    const scheduler = start({ tasks: [fanOut] });
    try {
      await clock.advance(MINUTE);
      const rows = await driver.introspect.list();
      expect(rows.map((r) => r.idempotencyKey).sort()).toEqual([
        `task:fire-bad-entry.fan-out:${START + MINUTE}:0:digest:a`,
        `task:fire-bad-entry.fan-out:${START + MINUTE}:2:digest:c`,
      ]);
      expect(logger.named('jobs.scheduler.task.invalid').map((e) => e.fields)).toEqual([
        expect.objectContaining({
          task: fanOut.name,
          occurrenceMs: START + MINUTE,
          index: 1,
          job: digest.name,
          error: expect.stringMatching(/^X_JOB_INPUT_INVALID/),
        }),
      ]);
      // the occurrence fired (its watermark moved): the next minute fires again, the bad entry alone refused again
      expect((await state.load([fanOut.name])).get(fanOut.name)).toBe(START + MINUTE);
      await clock.advance(MINUTE);
      expect(await driver.introspect.list()).toHaveLength(4);
      expect(logger.named('jobs.scheduler.task.invalid')).toHaveLength(2);
    } finally {
      await scheduler.stop();
    }
  });
});
