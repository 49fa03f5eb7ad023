import { claimOf, COUNTER_TIERS } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresJobDriver } from './pg-driver';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** A whole hour, so every tier's bucket starts at it. */
const START = Date.UTC(2026, 0, 1);

/**
 * `SQL_COUNTERS_ROLLUP` at the edge of the 5-minute tier: a 1-minute bucket folds into the 5-minute bucket holding it
 * while that bucket is still inside the 5-minute tier's window — its start at or after now less 7 days, the edge
 * included, as the memory driver folds it — and into its hour only past that.
 */
describe('counter rollup at the edge of the 5-minute tier (PostgreSQL, driven clock)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  it('folds a 1-minute bucket whose 5-minute bucket starts exactly 7 days ago into that 5-minute bucket', async () => {
    expect(COUNTER_TIERS[1]).toEqual({ bucketMs: 5 * MINUTE, keepMs: 7 * DAY });
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const r = request({ name: 'pg.rolled', runAt: START });
    await driver.enqueue(r);
    const [row] = await driver.claim({
      workerId: 'w',
      slots: [{ queue: r.queue, limit: 1 }],
      visibilityTimeoutMs: MINUTE,
    });
    if (row === undefined) throw new Error('nothing claimed');
    expect(await driver.ack(row.id, claimOf(row))).toBe(true);

    await clock.advance(7 * DAY);
    expect(await driver.introspect.rollupCounters()).toBe(1);
    const buckets = await driver.introspect.counters({ job: 'pg.rolled' });
    expect(buckets.map((b) => [b.bucketMs, b.bucketStart, b.done])).toEqual([
      [5 * MINUTE, START, 1],
    ]);
  });
});
