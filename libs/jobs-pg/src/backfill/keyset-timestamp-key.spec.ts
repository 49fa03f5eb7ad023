import 'reflect-metadata';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import {
  backfill,
  readKeysetPage,
  type BackfillInput,
  type BackfillResult,
  type JobSettled,
  type KeysetCursor,
  type KeysetPage,
} from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { harnessSlot } from '../../../jobs/test/harness-slot';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { drive } from '../../test/posts-spec';

/** Rows keyed by a time PostgreSQL stores to the microsecond, and a JavaScript `Date` holds to the millisecond. */
@Entity('kt_events')
class KtEvent {
  @PrimaryColumn('int')
  id!: number;

  @Column('timestamptz')
  at!: Date;
}

let data: DataSource | undefined;
const db = pgJobsSpec({ migrate: false, beforeDrop: () => data?.destroy() });
const harnesses = harnessSlot();
const source = () => (data as DataSource).getRepository(KtEvent).createQueryBuilder('e');
beforeAll(async () => {
  data = new DataSource({ type: 'postgres', url: db.url, entities: [KtEvent], synchronize: true });
  await data.initialize();
});

/** Replaces the rows with `times` (PostgreSQL text), ids 1…n in that order. */
async function seed(times: readonly string[]): Promise<void> {
  await data!.query('truncate kt_events');
  await data!.query(
    'insert into kt_events (id, at) select i, t::timestamptz from unnest($1::text[]) with ordinality as u(t, i)',
    [times],
  );
}

/** Pages `source` on `key` from the start, at most 20 pages: the ids read, and how the sweep ended. */
async function sweep(key: string[], batch: number): Promise<{ ids: number[]; ended: unknown }> {
  const ids: number[] = [];
  let cursor: KeysetCursor | null = null;
  try {
    for (let i = 0; i < 20; i++) {
      const page: KeysetPage<KtEvent> = await readKeysetPage<KtEvent>(
        'kt',
        source(),
        key,
        cursor,
        batch,
      );
      ids.push(...page.rows.map((r) => r.id));
      if (page.rows.length < batch) return { ids, ended: 'done' };
      cursor = page.cursor;
    }
    return { ids, ended: 'still paging after 20 pages' };
  } catch (error) {
    return { ids, ended: error };
  }
}

const MICROS = [
  '2026-01-01 00:00:00.000100+00',
  '2026-01-01 00:00:00.000200+00',
  '2026-01-01 00:00:00.001300+00',
  '2026-01-01 00:00:00.002400+00',
];

describe('a keyset on a timestamp the cursor cannot hold exactly, on PostgreSQL', () => {
  it('refuses the page that reads its cursor row again, instead of paging the same rows for ever', async () => {
    await seed(MICROS);
    for (const key of [['at'], ['at', 'id']]) {
      const { ids, ended } = await sweep(key, 2);
      // the first page is read once; the next one would start at the same two rows again
      expect(ids).toEqual([1, 2]);
      expect(ended).toMatchObject({
        code: 'X_INVARIANT',
        message: expect.stringContaining('read that row again') as unknown,
      });
    }
  });

  it('pages a millisecond timestamp (ties broken by id) exactly once, the cursor taken as the row held it', async () => {
    await seed([
      '2026-01-01 00:00:00.001+00',
      '2026-01-01 00:00:00.001+00',
      '2026-01-01 00:00:00.001+00',
      '2026-01-01 00:00:00.002+00',
      '2026-01-01 00:00:00.003+00',
    ]);
    expect(await sweep(['at', 'id'], 2)).toEqual({ ids: [1, 2, 3, 4, 5], ended: 'done' });
  });

  it('a backfill on such a key fails its pass with X_INVARIANT, each row handled once, instead of never ending', async () => {
    await seed(MICROS);
    const clock = frozenClock();
    const handled: number[] = [];
    const settled: JobSettled<BackfillInput, BackfillResult>[] = [];
    const handle = backfill<KtEvent>({
      name: 'kt-micros',
      batch: 2,
      rate: 1_000,
      tenant: 'none',
      clock,
      key: ['at', 'id'],
      retry: { attempts: 1 },
      source,
      handle: ({ rows }) => void handled.push(...rows.map((r) => r.id)),
      onSettled: (s) => void settled.push(s),
    });
    const h = await harnesses.start({ jobs: [handle], clock });
    await handle.enqueue({});
    await drive(h, () => settled.length > 0 || handled.length > 40, 1);
    expect(handled).toEqual([1, 2]);
    expect(settled[0]).toMatchObject({ outcome: 'dead-lettered', code: 'X_INVARIANT' });
  });
});
