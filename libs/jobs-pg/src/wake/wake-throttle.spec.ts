import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { uuidv7 } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { wakeListener } from '../../test/wake-listener';
import { request } from '../../test/requests';
import { postgresJobDriver } from '../driver/pg-driver';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { WAKE_DUE_WITHIN_MS, WAKE_LOCK_CLASS, WAKE_SLOT_MS } from './wake-session';

/** The `slot` and `woke` CTEs of one enqueue statement's source, verbatim. */
const wakeCtes = (file: string): string => {
  const text = readFileSync(join(__dirname, '..', 'sql', file), 'utf8');
  const from = text.indexOf('\nslot as materialized (');
  const to = text.indexOf('\n)', text.indexOf('\nwoke as (')) + 2;
  return text.slice(from, to);
};

describe('the wake CTEs', () => {
  it('are the same text in every enqueue statement, with the slot and lock class the package exports', () => {
    const single = wakeCtes('enqueue.sql.ts');
    expect(wakeCtes('enqueue-many.sql.ts')).toBe(single);
    expect(wakeCtes('enqueue-fresh.sql.ts')).toBe(single);
    expect(wakeCtes('enqueue-batch.sql.ts')).toBe(single);
    expect(single).toContain(`* 1000 / ${WAKE_SLOT_MS})::bigint`);
    expect(single).toContain(`a.n * ${WAKE_SLOT_MS} + ${WAKE_SLOT_MS}`);
    expect(single).toContain(`pg_try_advisory_xact_lock(${WAKE_LOCK_CLASS},`);
  });
});

/**
 * What the enqueue statements announce on `x_jobs_wake`, read off a raw LISTEN session. Each check ends with a marker
 * sent through the pool: a listener receives notifications in commit order, so once the marker is in, everything the
 * statements before it announced is too — "nothing was announced" needs no sleep.
 */
describe('the wake throttle in the enqueue statements', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES, beforeDrop: () => listener.end() });
  const listener = wakeListener(db);

  /** The queues announced since the last call. */
  const announced = async (): Promise<string[]> => {
    const { heard: got, marker: mark } = await listener.sinceMarker();
    expect(got.at(-1)).toBe(mark);
    return got.slice(0, -1);
  };

  // A frozen clock at a slot boundary decides every statement's "now"; ids are minted on the same clock, as an
  // enqueuer's would be.
  const setup = () => {
    const clock = frozenClock(Date.UTC(2026, 0, 1));
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const at = (overrides: Parameters<typeof request>[0] = {}) =>
      request({ id: uuidv7(clock.now()), runAt: clock.now(), ...overrides });
    return { clock, driver, at };
  };

  it('announces the first enqueue of a slot, then nothing more for that queue in the slot', async () => {
    const { clock, driver, at } = setup();
    await driver.enqueue(at({ queue: 'q' }));
    expect(await announced()).toEqual(['q']);
    await clock.advance(WAKE_SLOT_MS - 2);
    await driver.enqueue(at({ queue: 'q' }));
    await driver.enqueue(at({ queue: 'q' }));
    expect(await announced()).toEqual([]);
    // another queue in the same slot has its own throttle
    await driver.enqueue(at({ queue: 'other' }));
    expect(await announced()).toEqual(['other']);
    // the next slot announces again
    await clock.advance(WAKE_SLOT_MS);
    await driver.enqueue(at({ queue: 'q' }));
    expect(await announced()).toEqual(['q']);
  });

  it('announces nothing for a deduped enqueue', async () => {
    const { clock, driver, at } = setup();
    await driver.enqueue(at({ idempotencyKey: 'same' }));
    expect(await announced()).toEqual(['pg-q']);
    await clock.advance(WAKE_SLOT_MS);
    const again = await driver.enqueue(at({ idempotencyKey: 'same' }));
    expect(again.deduped).toBe(true);
    expect(await announced()).toEqual([]);
  });

  it('announces nothing for a row due more than 1 s out, and such a row silences nothing', async () => {
    const { clock, driver, at } = setup();
    await driver.enqueue(at({ runAt: clock.now() + WAKE_DUE_WITHIN_MS + 500 }));
    expect(await announced()).toEqual([]);
    // due just inside the window: announced, although the far row was minted in the same slot
    await driver.enqueue(at({ runAt: clock.now() + WAKE_DUE_WITHIN_MS - 100 }));
    expect(await announced()).toEqual(['pg-q']);
  });

  it('announces a batch once per queue it created rows in, under the same slot throttle', async () => {
    const { clock, driver, at } = setup();
    await driver.enqueueMany([
      at({ queue: 'a' }),
      at({ queue: 'b' }),
      at({ queue: 'a' }),
      at({ queue: 'c', runAt: clock.now() + 60_000 }),
    ]);
    expect((await announced()).sort()).toEqual(['a', 'b']);
    await clock.advance(WAKE_SLOT_MS - 2);
    await driver.enqueueMany([at({ queue: 'a' }), at({ queue: 'b' })]);
    expect(await announced()).toEqual([]);
    // a batch that creates nothing (every row deduped) announces nothing
    await clock.advance(WAKE_SLOT_MS);
    const first = at({ queue: 'a', idempotencyKey: 'k1' });
    await driver.enqueue(first);
    await announced();
    await clock.advance(WAKE_SLOT_MS);
    await driver.enqueueMany([at({ queue: 'a', idempotencyKey: 'k1' })]);
    expect(await announced()).toEqual([]);
  });

  it('announces a requeue, a promote and a resume, unthrottled', async () => {
    const { clock, driver, at } = setup();
    const delayed = at({ queue: 'later', runAt: clock.now() + 60_000 });
    await driver.enqueue(delayed);
    expect(await announced()).toEqual([]);
    await driver.introspect.promote(delayed.id);
    expect(await announced()).toEqual(['later']);

    const job = at({ queue: 'again' });
    await driver.enqueue(job);
    await announced();
    await driver.introspect.cancel(job.id);
    await driver.introspect.requeue(job.id);
    expect(await announced()).toEqual(['again']);

    await driver.introspect.resumeQueue('never-paused');
    expect(await announced()).toEqual([]);
    await driver.introspect.pauseQueue('paused');
    await driver.introspect.resumeQueue('paused');
    expect(await announced()).toEqual(['paused']);
  });

  it('counts a sibling only when its id AND its creation fall in the slot (app clocks skew)', async () => {
    const { clock, driver, at } = setup();
    // created a slot earlier by the database's clock, its id minted by an app clock running ahead into this slot
    await clock.advance(-WAKE_SLOT_MS);
    await driver.enqueue(at({ queue: 'q', id: uuidv7(clock.now() + WAKE_SLOT_MS + 1) }));
    expect(await announced()).toEqual(['q']);
    await clock.advance(WAKE_SLOT_MS);
    await driver.enqueue(at({ queue: 'q' }));
    expect(await announced()).toEqual(['q']);
  });

  it('lets one transaction of a concurrent wave announce the slot: the others skip while it is in flight', async () => {
    const { clock, at } = setup();
    const holder = await db.pool.connect();
    try {
      await holder.query('begin');
      const inTx = postgresJobDriver({ executor: pgPoolExecutor(holder), clock });
      await inTx.enqueue(at({ queue: 'q' }));
      const driver = postgresJobDriver({ executor: db.executor, clock });
      // none of these sees the holder's uncommitted row; its wake lock silences them
      await Promise.all(Array.from({ length: 20 }, () => driver.enqueue(at({ queue: 'q' }))));
      expect(await announced()).toEqual([]);
      // another queue has its own lock
      await driver.enqueue(at({ queue: 'other' }));
      expect(await announced()).toEqual(['other']);
      await holder.query('commit');
    } finally {
      holder.release();
    }
    expect(await announced()).toEqual(['q']);
  });

  it('announces a slot flooded by 20 connections at most once per connection', async () => {
    const { driver, at } = setup();
    // every enqueue lands in one frozen slot: only those whose snapshot predates the first commit may announce
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let i = 0; i < 10; i++) await driver.enqueue(at({ queue: 'q' }));
      }),
    );
    const got = await announced();
    expect(got.length).toBeGreaterThanOrEqual(1);
    expect(got.length).toBeLessThanOrEqual(20);
    expect(new Set(got)).toEqual(new Set(['q']));
  });
});
