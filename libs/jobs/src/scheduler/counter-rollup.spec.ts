import { COUNTER_ROLLUP_INTERVAL_MS } from '../driver/counters';
import { memoryJobDriver } from '../driver/memory';
import { claimOf } from '../driver/job-row';
import { frozenClock } from '../testing/frozen-clock';
import { uuidv7 } from '../util/ids';
import { recordingLogger } from '../util/logger';
import { CounterRollup } from './counter-rollup';
import { enqueueRequest } from '../../test/requests';

const DAY = 24 * 3_600_000;

async function doneRow(driver: ReturnType<typeof memoryJobDriver>, now: number): Promise<void> {
  const id = uuidv7(now);
  await driver.enqueue(
    enqueueRequest({
      id,
      runId: uuidv7(now),
      name: 'rollup.job',
      queue: 'q',
      input: {},
      idempotencyKey: id,
      runAt: now,
      maxAttempts: 1,
    }),
  );
  const [row] = await driver.claim({
    workerId: 'w',
    visibilityTimeoutMs: 1_000,
    slots: [{ queue: 'q', limit: 1 }],
  });
  if (row) await driver.ack(row.id, claimOf(row));
}

describe('CounterRollup (the scheduler leader hook)', () => {
  it('folds once a minute while this process leads, and not while it stands by', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const introspect = driver.introspect!;
    await doneRow(driver, clock.now());
    let leads = false;
    const rollup = new CounterRollup({
      introspect,
      clock,
      logger: recordingLogger(),
      isLeader: () => leads,
    });
    rollup.start();
    await clock.advance(DAY + COUNTER_ROLLUP_INTERVAL_MS);
    expect((await introspect.counters({ job: 'rollup.job' })).map((b) => b.bucketMs)).toEqual([
      60_000,
    ]);
    leads = true;
    await clock.advance(COUNTER_ROLLUP_INTERVAL_MS);
    expect((await introspect.counters({ job: 'rollup.job' })).map((b) => b.bucketMs)).toEqual([
      300_000,
    ]);
    await rollup.stop();
  });

  it('logs a fold that fails and tries again the next minute', async () => {
    const clock = frozenClock();
    const logger = recordingLogger();
    let calls = 0;
    const rollup = new CounterRollup({
      introspect: {
        rollupCounters: () =>
          ++calls === 1 ? Promise.reject(new Error('down')) : Promise.resolve(0),
      },
      clock,
      logger,
      isLeader: () => true,
    });
    rollup.start();
    await clock.advance(2 * COUNTER_ROLLUP_INTERVAL_MS);
    await rollup.stop();
    expect(calls).toBe(2);
    expect(logger.named('jobs.counters.rollup-failed')).toHaveLength(1);
  });
});
