import { randomUUID } from 'node:crypto';
import {
  claimOf,
  purge,
  resolveRetention,
  uuidv7,
  type JobDriver,
  type JobRow,
} from '@ultimat3/jobs';
import { frozenClock, runJobs, type FrozenClock } from '@ultimat3/jobs/testing';
import { until } from '../../../test/until';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver } from './driver/pg-driver';
import { enqueueRequest } from '../../jobs/test/requests';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const VT = 90 * DAY;

const db = pgJobsSpec();

/** Rows reached through the driver's own operations, each on a queue of its own so a claim takes exactly it. */
function seeder(driver: JobDriver, clock: FrozenClock) {
  let n = 0;
  const enqueue = async (runAt = clock.now()): Promise<string> => {
    const id = uuidv7(clock.now());
    const queue = `retention-${n++}`;
    await driver.enqueue(
      enqueueRequest({
        id,
        name: 'retention.row',
        queue,
        input: {},
        idempotencyKey: id,
        runAt,
      }),
    );
    return id;
  };
  const running = async () => {
    const id = await enqueue();
    const row = await driver.get(id);
    const [claimed] = await driver.claim({
      workerId: 'seed',
      visibilityTimeoutMs: VT,
      slots: [{ queue: row?.queue ?? '', limit: 1 }],
    });
    if (claimed?.id !== id) throw new Error('seed: claimed another row');
    return claimed;
  };
  return {
    enqueue,
    running,
    async done(withStep = false) {
      const row = await running();
      if (withStep) {
        const at = clock.now();
        await driver.steps.save(row.id, claimOf(row), {
          name: 's',
          output: 1,
          attempt: 1,
          startedAt: at,
          completedAt: at,
        });
      }
      await driver.ack(row.id, claimOf(row));
      return row.id;
    },
    async nacked(kind: 'dead' | 'fail' | 'park') {
      const row = await running();
      const runAt = clock.now() + 60 * DAY;
      await driver.nack(row.id, { ...claimOf(row), error: 'x', ...{ kind, runAt } });
      return row.id;
    },
  };
}

describe('the retention sweep over PostgreSQL (driven clock)', () => {
  it('removes finished rows past their retention with their steps, and touches nothing younger or live', async () => {
    const clock = frozenClock();
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const seed = seeder(driver, clock);
    const t0 = clock.now();

    const oldDone = await seed.done(true);
    const oldFailed = await seed.nacked('fail');
    const oldCancelled = await seed.enqueue();
    await driver.introspect?.cancel(oldCancelled);
    const oldDead = await seed.nacked('dead');
    const live = [
      await seed.enqueue(),
      await seed.enqueue(t0 + 60 * DAY),
      (await seed.running()).id,
      await seed.nacked('park'),
    ];
    await clock.advance(MINUTE);
    const atCutoff = await seed.done(true);
    await clock.advance(2 * DAY);
    const youngDone = await seed.done();
    const youngDead = await seed.nacked('dead');
    const published = uuidv7(clock.now());
    const pending = uuidv7(clock.now() + 1);
    for (const [id, publishedAt] of [
      [published, new Date(t0).toISOString()],
      [pending, null],
    ] as const) {
      await db.executor.query(
        `insert into x_outbox (id, run_id, name, queue, request, staged_at, published_at)
         values ($1, $2, 'retention.row', 'q', '{}', $3, $4)`,
        [id, randomUUID(), new Date(t0).toISOString(), publishedAt],
      );
    }
    const before = new Map<string, JobRow | undefined>();
    for (const id of [...live, atCutoff, youngDone, youngDead, oldDead])
      before.set(id, await driver.get(id));

    const policy = resolveRetention({ batchSize: 2 });
    const sweep = purge({
      name: 'retention.sweep',
      clock,
      targets: () => driver.purgeTargets?.(policy) ?? [],
    });
    const h = await runJobs({
      jobs: [sweep],
      driver,
      clock,
      installFacade: false,
      visibilityTimeoutMs: VT,
    });
    const sweepOnce = async (): Promise<void> => {
      const id = randomUUID();
      await driver.enqueue({ ...(await sweepRequest(id)), queue: sweep.queue, name: sweep.name });
      h.worker.signalEnqueued(sweep.queue);
      // The wake claims the sweep at once, and its work is a chain of database round trips (a step per target, a
      // delete per batch of 2), no timer: it lands in REAL time, whatever the clock does. So the wait is in real time
      // for the run's settle, firing only the timers due now: the clock stays where the spec put it, and the instant
      // the sweep reads is the one the assertions are computed from. (Counting clock advances instead bounded the
      // wait by how many round trips fit in 50 of them: on a loaded machine the sweep was still mid-chain.)
      await until(async () => {
        await h.settle();
        return (await driver.get(id))?.state === 'done';
      }, 30_000);
      expect((await driver.get(id))?.state).toBe('done');
    };
    const sweepRequest = async (id: string) =>
      enqueueRequest({
        id,
        name: sweep.name,
        queue: sweep.queue,
        input: {},
        idempotencyKey: id,
        runAt: clock.now(),
      });

    try {
      // just past 7 days after the first rows finished; the boundary row finished a minute after them
      await clock.advance(7 * DAY - 2 * DAY - MINUTE + 1_000);
      expect(clock.now()).toBe(t0 + 7 * DAY + 1_000);
      await sweepOnce();
      for (const id of [oldDone, oldFailed, oldCancelled])
        expect(await driver.get(id)).toBeUndefined();
      expect(await driver.steps.load(oldDone)).toEqual([]);
      // finished exactly at the cutoff (now - 7 days), younger, dead, live: each row exactly as it was
      for (const [id, row] of before) expect(await driver.get(id)).toEqual(row);
      expect((await driver.steps.load(atCutoff)).map((s) => s.name)).toEqual(['s']);
      // a row that finished exactly retention ago is kept: the cutoff is strict
      const done = driver.purgeTargets?.(policy).find((t) => t.name === 'x_jobs:done');
      expect(await done?.purgeExpired(t0 + MINUTE + 7 * DAY)).toBe(0);
      expect(await driver.get(atCutoff)).toEqual(before.get(atCutoff));
      const outbox = await db.executor.query<{ id: string }>(
        'select id from x_outbox order by id',
        [],
      );
      expect(outbox.rows.map((r) => r.id)).toEqual([pending]);

      await clock.advance(23 * DAY);
      await sweepOnce();
      expect(await driver.get(oldDead)).toBeUndefined();
      expect(await driver.get(atCutoff)).toBeUndefined();
      expect(await driver.get(youngDone)).toBeUndefined();
      // dead 28 days: kept for 30
      expect(await driver.get(youngDead)).toEqual(before.get(youngDead));
      for (const id of live) expect(await driver.get(id)).toEqual(before.get(id));
    } finally {
      await h.close();
    }
  });
});

describe('a retention longer than the epoch is old', () => {
  it('keeps every finished row and outbox row, where the cut-off was no time PostgreSQL could read', async () => {
    const clock = frozenClock();
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const seed = seeder(driver, clock);
    const done = await seed.done();
    const dead = await seed.nacked('dead');
    await clock.advance(400 * DAY);

    // "keep them": a keep past 1970 reached a year before 4713 BC, or no date at all
    for (const keep of [3_000 * 365 * DAY, Number.MAX_SAFE_INTEGER]) {
      const policy = resolveRetention({ finishedMs: keep, deadMs: keep });
      for (const target of driver.purgeTargets?.(policy) ?? [])
        await expect(target.purgeExpired(clock.now())).resolves.toEqual(expect.any(Number));
    }
    expect((await driver.get(done))?.state).toBe('done');
    expect((await driver.get(dead))?.state).toBe('dead');
  });
});
