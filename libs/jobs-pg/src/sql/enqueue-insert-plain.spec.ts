import { uuidv7, type EnqueueRequest } from '@ultimat3/jobs';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { wakeListener } from '../../test/wake-listener';
import { singleEnqueueParams } from '../driver/pg-enqueue-params';
import { WAKE_DUE_WITHIN_MS, WAKE_SLOT_MS } from '../wake/wake-session';
import { SQL_ENQUEUE_INSERT } from './enqueue-insert.sql';
import { SQL_ENQUEUE_INSERT_PLAIN } from './enqueue-insert-plain.sql';

describe('SQL_ENQUEUE_INSERT_PLAIN', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES, beforeDrop: () => listener.end() });
  const listener = wakeListener(db);
  // a slot boundary: every statement below runs on this clock (or a few ms past it)
  const T = Date.UTC(2026, 0, 1);

  const plain = async (r: EnqueueRequest, now = T) =>
    (
      await db.executor.query<{ created_s: string; announced: boolean }>(
        SQL_ENQUEUE_INSERT_PLAIN,
        singleEnqueueParams(r, new Date(now).toISOString()),
      )
    ).rows;
  const at = (overrides: Partial<EnqueueRequest> = {}, now = T): EnqueueRequest =>
    request({ id: uuidv7(now), runAt: now, queue: 'q', ...overrides });
  const count = async () =>
    (await db.executor.query<{ n: number }>('select count(*)::int as n from x_jobs', [])).rows;
  const announced = async (): Promise<string[]> => {
    const { heard, marker } = await listener.sinceMarker();
    expect(heard.at(-1)).toBe(marker);
    return heard.slice(0, -1);
  };

  it('is SQL_ENQUEUE_INSERT less its on conflict clause', () => {
    expect(SQL_ENQUEUE_INSERT_PLAIN).toBe(
      SQL_ENQUEUE_INSERT.replace('on conflict do nothing\n', ''),
    );
    expect(SQL_ENQUEUE_INSERT_PLAIN).not.toContain('on conflict');
  });

  it('creates and announces as SQL_ENQUEUE_INSERT does: the first of a slot, not the next, nor a row due later', async () => {
    expect(await plain(at())).toEqual([{ created_s: (T / 1000).toFixed(6), announced: true }]);
    const later = T + WAKE_SLOT_MS - 1;
    expect(await plain(at({}, later), later)).toEqual([
      expect.objectContaining({ announced: false }),
    ]);
    expect(await plain(at({ runAt: T + WAKE_DUE_WITHIN_MS + 1 }))).toEqual([
      expect.objectContaining({ announced: false }),
    ]);
    expect(await announced()).toEqual(['q']);
    expect(await count()).toEqual([{ n: 3 }]);
  });

  it('fails with a unique violation on a held id or live key, writing and announcing nothing', async () => {
    const holder = at({ idempotencyKey: 'k' });
    await plain(holder);
    expect(await announced()).toEqual(['q']);
    const next = T + 2 * WAKE_SLOT_MS; // a fresh slot: a created row would announce
    await expect(plain({ ...at({}, next), id: holder.id }, next)).rejects.toMatchObject({
      code: '23505',
    });
    await expect(plain(at({ idempotencyKey: 'k' }, next), next)).rejects.toMatchObject({
      code: '23505',
    });
    expect(await announced()).toEqual([]);
    expect(await count()).toEqual([{ n: 1 }]);
  });
});
