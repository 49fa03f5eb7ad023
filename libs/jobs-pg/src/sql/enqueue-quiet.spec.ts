import { uuidv7, type EnqueueRequest } from '@ultimat3/jobs';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { wakeListener } from '../../test/wake-listener';
import { singleEnqueueParams } from '../driver/pg-enqueue-params';
import { WAKE_DUE_WITHIN_MS, WAKE_SLOT_MS } from '../wake/wake-session';
import { SQL_ENQUEUE_INSERT } from './enqueue-insert.sql';
import { SQL_ENQUEUE_QUIET } from './enqueue-quiet.sql';

describe('SQL_ENQUEUE_QUIET', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES, beforeDrop: () => listener.end() });
  const listener = wakeListener(db);
  // a slot boundary: every statement below runs on this clock (or a few ms past it)
  const T = Date.UTC(2026, 0, 1);
  const iso = (ms: number) => new Date(ms).toISOString();

  const quiet = async (r: EnqueueRequest, now: number, slot: number | null) =>
    (
      await db.executor.query<{ created_s: string }>(SQL_ENQUEUE_QUIET, [
        ...singleEnqueueParams(r, iso(now)),
        slot === null ? null : iso(slot),
      ])
    ).rows;
  const insert = async (r: EnqueueRequest, now: number) =>
    (
      await db.executor.query<{ announced: boolean }>(
        SQL_ENQUEUE_INSERT,
        singleEnqueueParams(r, iso(now)),
      )
    ).rows;
  const at = (overrides: Partial<EnqueueRequest> = {}, now = T): EnqueueRequest =>
    request({ id: uuidv7(now), runAt: now, queue: 'q', ...overrides });
  const stored = async (id: string) =>
    (
      await db.executor.query<{ state: string; created_at: Date }>(
        'select state, created_at from x_jobs where id = $1',
        [id],
      )
    ).rows;
  const announced = async (): Promise<string[]> => {
    const { heard, marker } = await listener.sinceMarker();
    expect(heard.at(-1)).toBe(marker);
    return heard.slice(0, -1);
  };

  it('spells the slot and the due window the package exports', () => {
    expect(SQL_ENQUEUE_QUIET).toContain(
      `$16::timestamptz + interval '${WAKE_SLOT_MS} milliseconds'`,
    );
    expect(SQL_ENQUEUE_QUIET).toContain(`now()) + interval '${WAKE_DUE_WITHIN_MS / 1000} second'`);
  });

  it("inserts a row of the guarded slot, announcing nothing, as SQL_ENQUEUE_INSERT would with the slot's sibling committed", async () => {
    expect(await insert(at(), T)).toEqual([expect.objectContaining({ announced: true })]);
    expect(await announced()).toEqual(['q']);
    const later = T + WAKE_SLOT_MS - 1;
    const row = at({}, later);
    expect(await quiet(row, later, T)).toEqual([{ created_s: (later / 1000).toFixed(6) }]);
    expect(await stored(row.id)).toEqual([{ state: 'ready', created_at: new Date(later) }]);
    // the statement it stands for answers the same for the slot's next row
    expect(await insert(at({}, later), later)).toEqual([
      expect.objectContaining({ announced: false }),
    ]);
    expect(await announced()).toEqual([]);
  });

  it('inserts nothing when its clock is outside the guarded slot', async () => {
    const next = at({}, T + WAKE_SLOT_MS);
    expect(await quiet(next, T + WAKE_SLOT_MS, T)).toEqual([]);
    const early = at({}, T - 1);
    expect(await quiet(early, T - 1, T)).toEqual([]);
    expect(await quiet(at(), T, null)).toEqual([]);
    const { rows } = await db.executor.query<{ n: number }>(
      'select count(*)::int as n from x_jobs',
      [],
    );
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('inserts a row due past the wake window with no slot, delayed, and announces nothing', async () => {
    const far = at({ runAt: T + WAKE_DUE_WITHIN_MS + 1 });
    expect(await quiet(far, T, null)).toHaveLength(1);
    expect(await stored(far.id)).toEqual([{ state: 'delayed', created_at: new Date(T) }]);
    // due at the window's edge: SQL_ENQUEUE_INSERT announces it, so this statement does not insert it
    expect(await quiet(at({ runAt: T + WAKE_DUE_WITHIN_MS }), T, null)).toEqual([]);
    expect(await announced()).toEqual([]);
  });

  it('fails with a unique violation, writing nothing, when a row holds the id or a live row the key', async () => {
    const holder = at({ idempotencyKey: 'k' });
    await insert(holder, T);
    await expect(quiet({ ...at(), id: holder.id }, T + 1, T)).rejects.toMatchObject({
      code: '23505',
    });
    await expect(quiet(at({ idempotencyKey: 'k' }, T + 1), T + 1, T)).rejects.toMatchObject({
      code: '23505',
    });
    const { rows } = await db.executor.query<{ n: number }>(
      'select count(*)::int as n from x_jobs',
      [],
    );
    expect(rows).toEqual([{ n: 1 }]);
  });
});
