import { uuidv7, type EnqueueRequest } from '@ultimat3/jobs';
import { singleEnqueueParams } from '../driver/pg-enqueue-params';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { wakeListener } from '../../test/wake-listener';
import { WAKE_DUE_WITHIN_MS, WAKE_LOCK_CLASS, WAKE_SLOT_MS } from '../wake/wake-session';
import { SQL_ENQUEUE } from './enqueue.sql';
import { SQL_ENQUEUE_INSERT } from './enqueue-insert.sql';

/** The 15 parameters both single-enqueue statements take, with `now` (ms) as the statement's clock. */
const paramsOf = (r: EnqueueRequest, now: number): unknown[] =>
  singleEnqueueParams(r, new Date(now).toISOString());
/** Epoch ms as the statement answers `created_s`: epoch seconds, six decimals. */
const seconds = (ms: number): string => (ms / 1000).toFixed(6);

describe('SQL_ENQUEUE_INSERT', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES, beforeDrop: () => listener.end() });
  const listener = wakeListener(db);
  // a slot boundary: every statement below runs on this clock (or a few ms past it)
  const T = Date.UTC(2026, 0, 1);

  const insert = async (r: EnqueueRequest, now = T) =>
    (
      await db.executor.query<{ created_s: string; announced: boolean }>(
        SQL_ENQUEUE_INSERT,
        paramsOf(r, now),
      )
    ).rows;
  const judge = async (r: EnqueueRequest, now = T) =>
    (await db.executor.query<{ id: string; outcome: string }>(SQL_ENQUEUE, paramsOf(r, now))).rows;
  const at = (overrides: Partial<EnqueueRequest> = {}, now = T): EnqueueRequest =>
    request({ id: uuidv7(now), runAt: now, ...overrides });
  const announced = async (): Promise<string[]> => {
    const { heard, marker } = await listener.sinceMarker();
    expect(heard.at(-1)).toBe(marker);
    return heard.slice(0, -1);
  };

  it('spells the slot, the due window and the lock class the package exports', () => {
    expect(SQL_ENQUEUE_INSERT).toContain(`* 1000 / ${WAKE_SLOT_MS})::bigint as n`);
    expect(SQL_ENQUEUE_INSERT).toContain(`a.n * ${WAKE_SLOT_MS} + ${WAKE_SLOT_MS}`);
    expect(SQL_ENQUEUE_INSERT).toContain(`a.n * interval '${WAKE_SLOT_MS} milliseconds'`);
    expect(SQL_ENQUEUE_INSERT).toContain(`w.starts + interval '${WAKE_SLOT_MS} milliseconds'`);
    expect(SQL_ENQUEUE_INSERT).toContain(`interval '${WAKE_DUE_WITHIN_MS / 1000} second'`);
    expect(SQL_ENQUEUE_INSERT).toContain(`pg_try_advisory_xact_lock(${WAKE_LOCK_CLASS},`);
  });

  it('inserts the row and answers its creation time; the first of a slot announces its queue, the next ones do not', async () => {
    const first = at({ queue: 'q' });
    // created_at as epoch seconds, exact to the microsecond
    expect(await insert(first)).toEqual([{ created_s: seconds(T), announced: true }]);
    const { rows } = await db.executor.query<{ state: string; created_at: Date }>(
      'select state, created_at from x_jobs where id = $1',
      [first.id],
    );
    expect(rows).toEqual([{ state: 'ready', created_at: new Date(T) }]);
    expect(await announced()).toEqual(['q']);
    const later = T + WAKE_SLOT_MS - 1;
    expect(await insert(at({ queue: 'q' }, later), later)).toEqual([
      expect.objectContaining({ announced: false }),
    ]);
    expect(await insert(at({ queue: 'other' }, later), later)).toEqual([
      expect.objectContaining({ announced: true }),
    ]);
    expect(await announced()).toEqual(['other']);
    const next = T + WAKE_SLOT_MS;
    expect(await insert(at({ queue: 'q' }, next), next)).toEqual([
      expect.objectContaining({ announced: true }),
    ]);
    expect(await announced()).toEqual(['q']);
  });

  it('answers no row when a stored row holds the id, live or finished, and SQL_ENQUEUE then names it', async () => {
    const stored = at();
    await insert(stored);
    expect(await insert({ ...stored, idempotencyKey: 'another' })).toEqual([]);
    expect(await judge({ ...stored, idempotencyKey: 'another' })).toEqual([
      expect.objectContaining({ id: stored.id, outcome: 'id' }),
    ]);
    await db.executor.query(`update x_jobs set state = 'done', finished_at = now() where id = $1`, [
      stored.id,
    ]);
    expect(await insert({ ...stored, idempotencyKey: 'another' })).toEqual([]);
  });

  it('answers no row while a live row holds the key, and inserts once that row finished', async () => {
    const holder = at({ idempotencyKey: 'k', tenantId: null });
    await insert(holder);
    await announced();
    const again = at({ idempotencyKey: 'k', tenantId: null }, T + 2 * WAKE_SLOT_MS);
    expect(await insert(again, T + 2 * WAKE_SLOT_MS)).toEqual([]);
    expect(await judge(again, T + 2 * WAKE_SLOT_MS)).toEqual([
      expect.objectContaining({ id: holder.id, outcome: 'key' }),
    ]);
    // the same key under another tenant is another key
    const tenant = at({ idempotencyKey: 'k', tenantId: 't1' }, T + 2 * WAKE_SLOT_MS);
    expect(await insert(tenant, T + 2 * WAKE_SLOT_MS)).toHaveLength(1);
    await db.executor.query(`update x_jobs set state = 'done', finished_at = now() where id = $1`, [
      holder.id,
    ]);
    expect(await insert(again, T + 2 * WAKE_SLOT_MS)).toEqual([
      { created_s: seconds(T + 2 * WAKE_SLOT_MS), announced: false },
    ]);
    await expect(
      db.executor.query('select 1 from x_jobs where id = $1', [again.id]),
    ).resolves.toEqual(expect.objectContaining({ rowCount: 1 }));
    // a deduped attempt announced nothing; the two created rows share one slot, announced once
    expect(await announced()).toEqual(['pg-q']);
  });

  it('stores a row due past the window delayed and announces nothing for it; such a row silences nothing', async () => {
    const far = at({ queue: 'q', runAt: T + WAKE_DUE_WITHIN_MS + 500 });
    expect(await insert(far)).toEqual([expect.objectContaining({ announced: false })]);
    const { rows } = await db.executor.query<{ state: string }>(
      'select state from x_jobs where id = $1',
      [far.id],
    );
    expect(rows).toEqual([{ state: 'delayed' }]);
    expect(await insert(at({ queue: 'q', runAt: T + WAKE_DUE_WITHIN_MS - 100 }))).toEqual([
      expect.objectContaining({ announced: true }),
    ]);
    expect(await announced()).toEqual(['q']);
  });

  it('counts a sibling only when its id AND its creation fall in the slot', async () => {
    // created a slot earlier by the statement's clock, its id minted in this slot by a clock running ahead
    const skewed = at({ queue: 'q', id: uuidv7(T + 1) }, T - WAKE_SLOT_MS);
    expect(await insert(skewed, T - WAKE_SLOT_MS)).toEqual([
      expect.objectContaining({ announced: true }),
    ]);
    expect(await insert(at({ queue: 'q' }))).toEqual([
      expect.objectContaining({ announced: true }),
    ]);
    // created in this slot, its id minted a slot earlier
    const early = at({ queue: 'r', id: uuidv7(T - WAKE_SLOT_MS) });
    expect(await insert(early)).toEqual([expect.objectContaining({ announced: true })]);
    expect(await insert(at({ queue: 'r' }))).toEqual([
      expect.objectContaining({ announced: true }),
    ]);
    expect(await announced()).toEqual(['q', 'q', 'r', 'r']);
  });
});
