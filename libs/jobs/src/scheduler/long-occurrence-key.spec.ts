import { job } from '../declare/job';
import { task } from '../declare/task';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../values/bounds';
import { occurrenceKey } from './occurrence-requests';
import { schedulerRig } from '../../test/memory-scheduler';

const MINUTE = 60_000;
const START = Date.UTC(2026, 0, 1);
const sync = job({
  name: 'long-occurrence-key.sync',
  input: t.object({ path: t.string }),
  idempotencyKey: ({ path }) => path, // a key the job itself may have: up to 512 characters
  tenant: 'none',
});

describe('an occurrence of a job whose own key is long', () => {
  it('fires: the occurrence key stays within the key limit every driver stores', async () => {
    const { clock, driver, logger, state, start } = schedulerRig(frozenClock(START));
    const path = 'p'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH - 20);
    const minutely = task({
      name: 'long-occurrence-key.minutely',
      cron: '* * * * *',
      tz: 'UTC',
      enqueue: () => [[sync, { path }]],
    });
    const scheduler = start({ tasks: [minutely] });
    try {
      await clock.advance(MINUTE);
      expect(logger.named('jobs.scheduler.task.failed')).toEqual([]);
      const rows = await driver.introspect.list();
      expect(rows).toHaveLength(1);
      expect(rows[0]?.idempotencyKey).toMatch(
        new RegExp(`^task:${minutely.name}:${START + MINUTE}:0:sha256:[0-9a-f]{64}$`),
      );
      // a key that fits is kept as it is
      expect(occurrenceKey(minutely.name, START, 0, 'short')).toBe(
        `task:${minutely.name}:${START}:0:short`,
      );
      expect((await state.load([minutely.name])).get(minutely.name)).toBe(START + MINUTE);
    } finally {
      await scheduler.stop();
    }
  });

  it('keeps a job key that fills the limit exactly as it is, and hashes one a character longer', () => {
    const prefix = `task:t:${START}:0:`;
    const fits = 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH - prefix.length);
    expect(occurrenceKey('t', START, 0, fits)).toBe(prefix + fits);
    expect(occurrenceKey('t', START, 0, `${fits}k`)).toMatch(/^task:t:\d+:0:sha256:[0-9a-f]{64}$/);
  });
});
