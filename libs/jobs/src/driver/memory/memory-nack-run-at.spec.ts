import type { JobDriver } from '../job-driver';
import { claimOf, type JobRow } from '../job-row';
import { frozenClock, type FrozenClock } from '../../testing/frozen-clock';
import { enqueueRequest } from '../../../test/requests';
import { scratchPostgres, type ScratchBackend } from '../../../test/scratch-backends';
import { memoryJobDriver } from './memory-driver';

let queues = 0;

/** The row one nack at `offsetMs` past now leaves, on `driver` (a fresh row, claimed, then handed back). */
async function nackedAt(
  driver: JobDriver,
  clock: FrozenClock,
  kind: 'retry' | 'handBack' | 'park',
  offsetMs: number,
): Promise<Pick<JobRow, 'state'> & { runAfterMs: number; claimable: boolean }> {
  const queue = `nack-run-at-${++queues}`;
  const request = enqueueRequest({ queue, runAt: clock.now() });
  await driver.enqueue(request);
  const [row] = await driver.claim({
    workerId: 'w',
    slots: [{ queue, limit: 1 }],
    visibilityTimeoutMs: 30_000,
  });
  if (row === undefined) throw new Error('nothing claimed');
  const start = clock.now();
  const runAt = start + offsetMs;
  expect(await driver.nack(row.id, { ...claimOf(row), kind, error: null, runAt })).toBe(true);
  const stored = await driver.get(row.id);
  if (stored === undefined) throw new Error('row gone');
  // at the millisecond the stored run time names, a claim takes the row, or not
  if (offsetMs > 0) clock.advance(Math.trunc(offsetMs));
  const claimable =
    (
      await driver.claim({
        workerId: 'w',
        slots: [{ queue, limit: 10 }],
        visibilityTimeoutMs: 30_000,
      })
    ).length > 0;
  return { state: stored.state, runAfterMs: stored.runAt - start, claimable };
}

/**
 * A nack's run time is stored as PostgreSQL stores it: a `timestamptz` from the time's whole milliseconds (the driver
 * sends `new Date(runAt)`, which drops the fraction), its state decided against that stored time. A retry's run time
 * carries a fraction when its delay does (`retry.delay: 1.5`, a `Retry-After: 1.2345` without jitter): the memory
 * driver stored the fraction, answered `delayed` where PostgreSQL answers `ready`, and held the row from a claim at
 * the very millisecond PostgreSQL hands it out.
 */
describe('a nack with a fractional run time, on memory as on PostgreSQL', () => {
  jest.setTimeout(30_000);
  let pg: ScratchBackend;
  let pgClock: FrozenClock;
  beforeAll(async () => {
    pgClock = frozenClock();
    pg = await scratchPostgres('x_nack_run_at', pgClock);
  });
  afterAll(async () => {
    await pg?.backend.close();
    await pg?.drop();
  });

  it.each([
    ['retry', 0.5],
    ['retry', 1_500.75],
    ['handBack', 0.25],
    ['park', 60_000.5],
    ['retry', -0.5],
  ] as const)('a %s at now + %d ms', async (kind, offsetMs) => {
    const memoryClock = frozenClock();
    const onPg = await nackedAt(pg.backend.driver, pgClock, kind, offsetMs);
    const onMemory = await nackedAt(
      memoryJobDriver({ clock: memoryClock }),
      memoryClock,
      kind,
      offsetMs,
    );
    expect(onMemory).toEqual(onPg);
    // the whole milliseconds of the time (a clock after 1970: the fraction dropped is a floor)
    expect(onMemory.runAfterMs).toBe(Math.floor(offsetMs));
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, 9e15])(
    'a retry at %d is refused and leaves the row running under its claim',
    async (runAt) => {
      const memoryClock = frozenClock();
      for (const [driver, clock] of [
        [pg.backend.driver, pgClock],
        [memoryJobDriver({ clock: memoryClock }), memoryClock],
      ] as const) {
        const queue = `nack-run-at-${++queues}`;
        await driver.enqueue(enqueueRequest({ queue, runAt: clock.now() }));
        const [row] = await driver.claim({
          workerId: 'w',
          slots: [{ queue, limit: 1 }],
          visibilityTimeoutMs: 30_000,
        });
        if (row === undefined) throw new Error('nothing claimed');
        await expect(
          driver.nack(row.id, { ...claimOf(row), kind: 'retry', error: null, runAt }),
        ).rejects.toThrow();
        expect(await driver.get(row.id)).toMatchObject({ state: 'running', claim: row.claim });
        expect(await driver.ack(row.id, claimOf(row))).toBe(true);
      }
    },
  );
});
