import { frozenClock } from '@ultimat3/jobs/testing';
import { at, claimAndHandBack, claimOne, QUEUE, START } from '../test/low-water-fixtures';
import { JOB_TABLES } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver } from './driver/pg-driver';

/**
 * The rows the driver puts below its own low water, where its next claim must still see them: a row put back more than
 * `LOW_WATER_SLACK_MS` in the past (the claim's bound is its time less that much), and a batch holding one past row
 * among rows due now. See `low-water.spec.ts` for the bound itself.
 */
describe('claim low water lowered by the driver itself (PostgreSQL, driven clock)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  it('lowers the bound for a row put back just over a second in the past, and for the one past row of a batch', async () => {
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: db.executor, clock });
    await claimOne(driver);
    expect(driver.lowWater.bound(QUEUE)).toBe(START - 1_000);
    const early = at(START);
    // below the bound the claim computed at START (its time less a second), so the driver lowers it
    await driver.enqueue(early);
    await claimAndHandBack(driver, QUEUE, early.id, START - 1_500);
    expect((await claimOne(driver)).map((r) => r.id)).toEqual([early.id]);
    // a batch of rows due now holding one row in the past: that one row lowers the bound
    const past = at(START - 3_600_000);
    await driver.enqueueMany([at(START), past, at(START)]);
    expect(driver.lowWater.bound(QUEUE)).toBe(START - 3_600_000);
    expect((await claimOne(driver)).map((r) => r.id)).toEqual([past.id]);
  });
});
