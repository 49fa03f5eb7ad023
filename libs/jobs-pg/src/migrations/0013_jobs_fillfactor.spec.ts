import { postgresJobDriver } from '../driver/pg-driver';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';

/** The heap page each row version of these ids sits on (`ctid`'s block), by id. */
async function pagesOf(
  db: ReturnType<typeof pgJobsSpec>,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const { rows } = await db.pool.query<{ id: string; page: string }>(
    `select id, (ctid::text::point)[0]::text as page from x_jobs where id = any($1::uuid[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.page]));
}

describe('migration 0013: x_jobs pages filled to half', () => {
  const db = pgJobsSpec();

  it('keeps a claimed and then acked row on the page it was enqueued on', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    // several pages' worth: filled to the brim, the claim's versions would have to leave their pages
    const enqueued = await driver.enqueueMany(
      Array.from({ length: 300 }, () =>
        request({ queue: 'ff-q', input: { pad: 'x'.repeat(200) } }),
      ),
    );
    const ids = enqueued.map((r) => r.id);
    const before = await pagesOf(db, ids);
    expect(new Set(before.values()).size).toBeGreaterThan(5);

    const claimed = await driver.claim({
      workerId: 'ff-worker',
      slots: [{ queue: 'ff-q', limit: 300 }],
      visibilityTimeoutMs: 60_000,
    });
    expect(claimed).toHaveLength(300);
    const running = await pagesOf(db, ids);
    expect(ids.filter((id) => running.get(id) !== before.get(id))).toEqual([]);

    const landed = await driver.ackMany!(
      claimed.map((row) => ({ jobId: row.id, workerId: 'ff-worker', claim: row.claim! })),
    );
    expect(landed.every(Boolean)).toBe(true);
    const done = await pagesOf(db, ids);
    expect(ids.filter((id) => done.get(id) !== before.get(id))).toEqual([]);
  });
});
