import { Client } from 'pg';
import { job, JobRegistry, jobWorker, t, uuidv7, type JobWorker } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { resetJobTables } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { wakeListener } from '../../test/wake-listener';
import { request } from '../../test/requests';
import { until } from '../../../../test/until';
import { postgresJobDriver } from '../driver/pg-driver';
import type { PgExecutor } from '../executor/pg-executor';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { startQueueWake, type QueueWake } from './queue-wake';
import { WAKE_SLOT_MS } from './wake-session';

/**
 * The woken loop against a real server: a worker whose poll is a minute away, so only wakes and their sweeps can start
 * a row, and a raw LISTEN session counting what the enqueues announce.
 */
describe('pickup by the wake alone (the poll a minute away)', () => {
  let worker: JobWorker | undefined;
  let wake: QueueWake | undefined;
  const started = new Set<string>();

  const slotJob = job({
    name: 'wake.slot',
    queue: 'slot',
    input: t.object({ n: t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run: ({ jobId }) => void started.add(jobId),
  });

  const db = pgJobsSpec({ beforeDrop: () => listener.end() });
  const listener = wakeListener(db);
  beforeEach(async () => {
    await resetJobTables(db.executor);
    started.clear();
  });
  afterEach(async () => {
    await worker?.stop();
    await wake?.stop();
    worker = undefined;
    wake = undefined;
  });

  /** What was announced since the last call, probes left out (see wake-throttle.spec.ts for the marker). */
  const announced = async (): Promise<string[]> => {
    const { heard, marker } = await listener.sinceMarker();
    return heard.filter((p) => p !== marker && !p.startsWith('probe/'));
  };

  /** Starts a worker serving `slot` whose poll never comes within the test, woken by a proven wake. */
  const serve = async (sweepAfterMs?: number): Promise<JobWorker> => {
    const registry = new JobRegistry();
    registry.register(slotJob);
    const w = jobWorker({
      driver: postgresJobDriver({ executor: db.executor }),
      registry,
      concurrency: 20,
      pollIntervalMs: 60_000,
      idlePollMaxMs: 60_000,
    });
    worker = w;
    wake = startQueueWake({
      listener: () => new Client({ connectionString: db.url }),
      executor: db.executor,
      target: w,
      ...(sweepAfterMs === undefined ? {} : { sweepAfterMs }),
    });
    expect(await wake.ready()).toBe(true);
    await w.start();
    await announced();
    return w;
  };

  /** An enqueuer whose statements all fall in one wake slot: its clock is frozen at the start of the current one. */
  const enqueuer = () => {
    const clock = frozenClock(Math.floor(Date.now() / WAKE_SLOT_MS) * WAKE_SLOT_MS);
    const at = (n: number) =>
      request({ name: 'wake.slot', queue: 'slot', input: { n }, id: uuidv7(clock.now()) });
    return { clock, at, driver: postgresJobDriver({ executor: db.executor, clock }) };
  };

  it('starts every row of a slot whose wave skipped the announcement, on the one wake its holder sends', async () => {
    await serve();
    const { clock, at, driver } = enqueuer();
    const holder = await db.pool.connect();
    const ids: string[] = [];
    try {
      await holder.query('begin');
      const inTx = postgresJobDriver({ executor: pgPoolExecutor(holder), clock });
      ids.push((await inTx.enqueue(at(0))).id);
      const wave = await Promise.all(
        Array.from({ length: 10 }, (_, i) => driver.enqueue(at(i + 1))),
      );
      ids.push(...wave.map((r) => r.id));
      // the wave committed and announced nothing: its rows wait for the holder's announcement
      expect(await announced()).toEqual([]);
      await holder.query('commit');
    } finally {
      holder.release();
    }
    expect(await announced()).toEqual(['slot']);
    await until(() => ids.every((id) => started.has(id)));
  });

  it('sweeps once after a wake: a row of the slot committed after the woken pass starts without the poll', async () => {
    await serve(1_000);
    const { clock, at, driver } = enqueuer();
    const first = await driver.enqueue(at(1));
    const late = await db.pool.connect();
    try {
      await late.query('begin');
      // it sees the first row committed in its slot: it announces nothing
      const second = await postgresJobDriver({ executor: pgPoolExecutor(late), clock }).enqueue(
        at(2),
      );
      await until(() => started.has(first.id));
      await late.query('commit');
      expect(await announced()).toEqual(['slot']);
      await until(() => started.has(second.id));
    } finally {
      late.release();
    }
  });

  it('sends no notification while idle: a minute of idle passes, probes aside, announces nothing', async () => {
    const clock = frozenClock(Date.now());
    // the worker's statements, and how many are on the wire: the clock moves on only once they returned
    let pending = 0;
    const executor: PgExecutor = {
      shared: true,
      async query(text, values) {
        pending++;
        try {
          return await db.executor.query(text, values);
        } finally {
          pending--;
        }
      },
    };
    const registry = new JobRegistry();
    registry.register(slotJob);
    const w = jobWorker({ driver: postgresJobDriver({ executor, clock }), registry, clock });
    worker = w;
    wake = startQueueWake({
      listener: () => new Client({ connectionString: db.url }),
      executor: db.executor,
      target: w,
    });
    expect(await wake.ready()).toBe(true);
    await w.start();
    await announced();
    const idleFor = async (ms: number): Promise<void> => {
      for (let spent = 0; spent < ms; spent += 250) {
        await clock.advance(250);
        await until(() => pending === 0);
      }
    };
    await idleFor(20_000); // the back-off climbs to the ceiling
    const claims = w.stats().claims;
    await idleFor(60_000);
    // the idle ceiling with a proven wake is 5 s: 12 passes a minute
    expect(w.stats().claims - claims).toBe(12);
    expect(await announced()).toEqual([]);
  });
});
