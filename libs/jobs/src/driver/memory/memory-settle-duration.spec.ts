import type { JobDriver } from '../job-driver';
import type { JobIntrospection } from '../introspection';
import { claimOf } from '../job-row';
import { frozenClock, type FrozenClock } from '../../testing/frozen-clock';
import { enqueueRequest } from '../../../test/requests';
import { scratchPostgres, type ScratchBackend } from '../../../test/scratch-backends';
import { memoryJobDriver } from './memory-driver';

let n = 0;

/** The duration the counters hold after one ack and one retry of a fresh job, each settled with `durationMs`. */
async function countedDuration(
  driver: JobDriver,
  introspect: JobIntrospection,
  clock: FrozenClock,
  durationMs: number,
): Promise<number> {
  const name = `settle-duration-${++n}`;
  const claimOne = async (): Promise<Parameters<typeof claimOf>[0]> => {
    await driver.enqueue(enqueueRequest({ name, queue: name, runAt: clock.now() }));
    const [row] = await driver.claim({
      workerId: 'w',
      slots: [{ queue: name, limit: 1 }],
      visibilityTimeoutMs: 30_000,
    });
    if (row === undefined) throw new Error('nothing claimed');
    return row;
  };
  const acked = await claimOne();
  expect(await driver.ack(acked.id, { ...claimOf(acked), durationMs })).toBe(true);
  const retried = await claimOne();
  const retry = { ...claimOf(retried), kind: 'retry' as const, error: 'e', durationMs };
  expect(await driver.nack(retried.id, retry)).toBe(true);
  const buckets = await introspect.counters({ job: name, sinceMs: clock.now() - 3_600_000 });
  return buckets.reduce((sum, b) => sum + b.durationMs, 0);
}

/**
 * A settle's duration is counted as PostgreSQL counts it: whole, non-negative milliseconds, and 0 for one that is not a
 * finite number (a clock that answered NaN). The memory driver added NaN (or Infinity) to the minute's bucket, and every
 * later sum over that bucket, its rollups included, read NaN.
 */
describe("a settle's duration in the counters, on memory as on PostgreSQL", () => {
  jest.setTimeout(30_000);
  let pg: ScratchBackend;
  let pgClock: FrozenClock;
  beforeAll(async () => {
    pgClock = frozenClock();
    pg = await scratchPostgres('x_settle_duration', pgClock);
  });
  afterAll(async () => {
    await pg?.backend.close();
    await pg?.drop();
  });

  it.each([12.6, -5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    'a duration of %d ms',
    async (durationMs) => {
      const introspect = pg.backend.driver.introspect;
      if (introspect === undefined) throw new Error('no introspection');
      const onPg = await countedDuration(pg.backend.driver, introspect, pgClock, durationMs);
      const clock = frozenClock();
      const memory = memoryJobDriver({ clock });
      const onMemory = await countedDuration(memory, memory.introspect, clock, durationMs);
      expect(onMemory).toBe(onPg);
    },
  );
});
