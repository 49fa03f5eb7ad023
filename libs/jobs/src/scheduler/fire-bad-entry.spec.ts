import { job } from '../declare/job';
import { task } from '../declare/task';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { recordingLogger } from '../util/logger';
import { jobScheduler } from './job-scheduler';
import { memoryLeaseLeader } from './memory-lease-leader';
import { memorySchedulerState } from './memory-scheduler-state';

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
    const clock = frozenClock(START);
    const driver = memoryJobDriver({ clock });
    const logger = recordingLogger();
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
    const state = memorySchedulerState({ driver, clock });
    const scheduler = jobScheduler({
      driver,
      tasks: [fanOut],
      clock,
      logger,
      state,
      leader: memoryLeaseLeader(),
    });
    scheduler.start();
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
