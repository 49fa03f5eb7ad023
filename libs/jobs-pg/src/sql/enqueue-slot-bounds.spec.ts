import { uuidv7, type EnqueueRequest } from '@ultimat3/jobs';
import { singleEnqueueParams } from '../driver/pg-enqueue-params';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { wakeListener } from '../../test/wake-listener';
import { WAKE_SLOT_MS } from '../wake/wake-session';
import { SQL_ENQUEUE } from './enqueue.sql';
import { SQL_ENQUEUE_INSERT } from './enqueue-insert.sql';
import { SQL_ENQUEUE_INSERT_PLAIN } from './enqueue-insert-plain.sql';

/**
 * The wake's sibling probe reads the UUIDv7 ids minted in the statement's slot as one primary-key range [lo, hi),
 * built from the slot's first millisecond as 12 hex digits and 20 zeros in the single enqueue's inserts, hyphenated
 * in `SQL_ENQUEUE` (whose wake CTEs the batch statements share verbatim). Pinned at its edges for each statement: a
 * sibling minted in the slot's first or last millisecond silences the announcement, one minted a millisecond before
 * the slot or at the next slot's first does not. The slot is the one holding 0x19c00000000 ms, so its end carries
 * across every hex digit but the first three.
 */
describe.each([
  ['SQL_ENQUEUE_INSERT', SQL_ENQUEUE_INSERT],
  ['SQL_ENQUEUE_INSERT_PLAIN', SQL_ENQUEUE_INSERT_PLAIN],
  ['SQL_ENQUEUE', SQL_ENQUEUE],
])("%s: the slot's id range", (_name, sql) => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES, beforeDrop: () => listener.end() });
  const listener = wakeListener(db);
  const T = Math.floor(0x19c00000000 / WAKE_SLOT_MS) * WAKE_SLOT_MS;

  /** Inserts a job of `queue` whose id was minted at `mintedMs`, on the statement clock `nowMs`. */
  const insert = async (queue: string, mintedMs: number, nowMs: number): Promise<void> => {
    const r: EnqueueRequest = request({ queue, id: uuidv7(mintedMs), runAt: nowMs });
    const { rowCount } = await db.executor.query(
      sql,
      singleEnqueueParams(r, new Date(nowMs).toISOString()),
    );
    expect(rowCount).toBe(1);
  };
  const announced = async (): Promise<string[]> => {
    const { heard, marker } = await listener.sinceMarker();
    expect(heard.at(-1)).toBe(marker);
    return heard.slice(0, -1);
  };

  it('holds the ids minted in the slot, from its first millisecond to its last', async () => {
    expect(T).toBeLessThan(0x19c00000000);
    await insert('first', T, T);
    await insert('first', T + 2, T + WAKE_SLOT_MS - 1);
    await insert('last', T + WAKE_SLOT_MS - 1, T + WAKE_SLOT_MS - 1);
    await insert('last', T + 1, T + WAKE_SLOT_MS - 1);
    // each sibling announced its queue; the rows after them in the slot did not
    expect(await announced()).toEqual(['first', 'last']);
  });

  it('leaves out the ids minted a millisecond before the slot or at the next one', async () => {
    await insert('before', T - 1, T);
    await insert('before', T + 1, T + 1);
    await insert('after', T + WAKE_SLOT_MS, T + 1);
    await insert('after', T + 2, T + 2);
    expect(await announced()).toEqual(['before', 'before', 'after', 'after']);
  });
});
