import { Client } from 'pg';
import { uuidv7 } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { createTestDatabase, resetJobTables, type TestDatabase } from '../../test/test-database';
import { request } from '../../test/requests';
import { postgresJobDriver } from '../driver/pg-driver';
import { WAKE_CHANNEL, WAKE_DUE_WITHIN_MS, WAKE_SLOT_MS } from './wake-session';

/**
 * What the enqueue statements announce on `x_jobs_wake`, read off a raw LISTEN session. Each check ends with a marker
 * sent through the pool: a listener receives notifications in commit order, so once the marker is in, everything the
 * statements before it announced is too — "nothing was announced" needs no sleep.
 */
describe('the wake throttle in the enqueue statements', () => {
  let db: TestDatabase;
  let listener: Client;
  const heard: string[] = [];
  let marker = 0;

  beforeAll(async () => {
    db = await createTestDatabase();
    listener = new Client({ connectionString: db.url });
    await listener.connect();
    listener.on('notification', (n) => {
      if (n.channel === WAKE_CHANNEL) heard.push(n.payload ?? '');
    });
    await listener.query(`listen ${WAKE_CHANNEL}`);
  });
  afterAll(async () => {
    await listener?.end();
    await db?.drop();
  });
  beforeEach(async () => {
    await resetJobTables(db.executor);
  });

  /** The queues announced since the last call. */
  const announced = async (): Promise<string[]> => {
    const mark = `marker/${marker++}`;
    await db.pool.query('select pg_notify($1, $2)', [WAKE_CHANNEL, mark]);
    for (let i = 0; i < 400 && !heard.includes(mark); i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const got = heard.splice(0, heard.length);
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
    await clock.advance(10);
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
    await clock.advance(5);
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
});
