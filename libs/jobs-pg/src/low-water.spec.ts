import {
  job,
  JobRegistry,
  jobWorker,
  t,
  type ClaimSlot,
  type EnqueueRequest,
} from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { at, claimAndHandBack, claimOne, QUEUE, START, VT } from '../test/low-water-fixtures';
import { resetJobTables, JOB_TABLES } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver, type PostgresJobDriver } from './driver/pg-driver';
import { LOW_WATER_REFRESH_MS } from './driver/pg-low-water';

/**
 * The driver's low water (`PgLowWater`, inside the PostgreSQL driver): a hint that lets a claim's waiting scan start
 * past the index entries a held snapshot keeps alive, never a correctness dependency.
 */
describe('claim low water (PostgreSQL, driven clock)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  it('computes the least run time of every waiting row, excluded tenants and rows it takes included', async () => {
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: db.executor, clock });
    await driver.enqueueMany([
      at(START - 50_000, { tenantId: 'capped' }),
      at(START - 40_000),
      at(START + 60_000),
    ]);
    // a claim sent after the enqueues (which lowered the bound to their own run times) computes it afresh
    await clock.advance(1);
    const rows = await claimOne(driver, ['capped']);
    expect(rows.map((row) => row.runAt)).toEqual([START - 40_000]);
    expect(driver.lowWater.bound(QUEUE)).toBe(START - 50_000);
    expect(driver.waitingBound(QUEUE)).toBe(START - 50_000);
  });

  it('computes at most the claim time less a second, and again only LOW_WATER_REFRESH_MS later', async () => {
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: db.executor, clock });
    expect(driver.waitingBound(QUEUE)).toBeUndefined();
    await claimOne(driver);
    expect(driver.lowWater.bound(QUEUE)).toBe(START - 1_000);
    await driver.enqueue(at(START + 10_000));
    await clock.advance(LOW_WATER_REFRESH_MS - 1);
    await claimOne(driver);
    expect(driver.lowWater.bound(QUEUE)).toBe(START - 1_000);
    await clock.advance(1);
    await claimOne(driver);
    expect(driver.lowWater.bound(QUEUE)).toBe(START + LOW_WATER_REFRESH_MS - 1_000);
  });

  it('lowers the bound for a row it puts in the past itself (an enqueue, a nack), so its own claims see it', async () => {
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: db.executor, clock });
    await claimOne(driver);
    expect(driver.lowWater.bound(QUEUE)).toBe(START - 1_000);
    const early = at(START - 3_600_000);
    await driver.enqueue(early);
    expect(driver.lowWater.bound(QUEUE)).toBe(START - 3_600_000);
    await claimAndHandBack(driver, QUEUE, early.id, START - 7_200_000);
    expect(driver.lowWater.bound(QUEUE)).toBe(START - 7_200_000);
    expect((await claimOne(driver)).map((r) => r.id)).toEqual([early.id]);
  });

  it('lowers the bound for a row put back just over a second in the past, and for the one past row of a batch', async () => {
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: db.executor, clock });
    await claimOne(driver);
    expect(driver.lowWater.bound(QUEUE)).toBe(START - 1_000);
    const early = at(START);
    // below the bound the claim computed at START (its time less a second), so the driver lowers it
    await driver.enqueue(early);
    await claimAndHandBack(driver, QUEUE, early.id, START - 1_500);
    expect((await claimOne(driver)).map((r) => r.id)).toEqual([early.id]);
    // a batch of rows due now holding one row in the past: that one row lowers the bound
    const past = at(START - 3_600_000);
    await driver.enqueueMany([at(START), past, at(START)]);
    expect(driver.lowWater.bound(QUEUE)).toBe(START - 3_600_000);
    expect((await claimOne(driver)).map((r) => r.id)).toEqual([past.id]);
  });

  it('a row handed back at a fractional past time (stored to the whole ms below it) is still claimed at once', async () => {
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: db.executor, clock });
    await claimOne(driver);
    expect(driver.lowWater.bound(QUEUE)).toBe(START - 1_000);
    const early = at(START);
    await driver.enqueue(early);
    await claimAndHandBack(driver, QUEUE, early.id, START - 2_000.5);
    // the bound is a whole ms at or below the stored time, never the fraction above it
    expect(driver.lowWater.bound(QUEUE)).toBe(START - 2_001);
    expect((await claimOne(driver)).map((r) => r.id)).toEqual([early.id]);
  });

  it('claims the same rows in the same order with a bound as without when none is below it', async () => {
    const clock = frozenClock(START);
    const requests = [
      at(START - 30_000, { priority: 5 }),
      at(START - 20_000, { priority: 5 }),
      at(START - 25_000, { priority: 2 }),
      at(START - 10_000, { priority: 5 }),
      // enqueued last, run last, highest priority: claimed first
      at(START - 5_000, { priority: 0 }),
    ];
    // one row a claim, so the order the claim picks in shows (a claim's rows come back in no particular order)
    const slot: ClaimSlot = { queue: QUEUE, limit: 1 };
    const claimInOrder = async (
      d: PostgresJobDriver,
      before: (n: number) => Promise<void>,
    ): Promise<(string | undefined)[]> => {
      await resetJobTables(db.executor);
      await d.enqueueMany(requests);
      const ids: (string | undefined)[] = [];
      for (let n = 0; n < requests.length + 1; n++) {
        await before(n);
        const rows = await d.claim({ workerId: 'w', slots: [slot], visibilityTimeoutMs: VT });
        ids.push(...rows.map((row) => row.id));
      }
      return ids;
    };
    const order = [4, 2, 0, 1, 3].map((i) => requests[i]?.id);
    // every claim computing the low water afresh (a refresh bounds nothing yet)
    const refreshing = postgresJobDriver({ executor: db.executor, clock });
    expect(await claimInOrder(refreshing, () => clock.advance(LOW_WATER_REFRESH_MS))).toEqual(
      order,
    );
    // every claim starting at the least run time, as a claim computed it
    const bounded = postgresJobDriver({ executor: db.executor, clock });
    const bound = (n: number): Promise<void> => {
      if (n === 0) bounded.lowWater.learn(QUEUE, START - 30_000, clock.now() + 1);
      return Promise.resolve();
    };
    expect(await claimInOrder(bounded, bound)).toEqual(order);
    const fresh = postgresJobDriver({ executor: db.executor, clock });
    await resetJobTables(db.executor);
    await fresh.enqueueMany(requests);
    await clock.advance(1);
    await fresh.claim({
      workerId: 'w',
      slots: [{ queue: QUEUE, limit: 10 }],
      visibilityTimeoutMs: VT,
    });
    expect(fresh.lowWater.bound(QUEUE)).toBe(START - 30_000);
  });

  it('skips rows below the bound: the hint is what bounds the scan', async () => {
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: db.executor, clock });
    await driver.enqueueMany([at(START - 10_000), at(START - 2_000)]);
    // as if a claim sent after the enqueues had computed a bound above the first row (another process's clock)
    driver.lowWater.learn(QUEUE, START - 5_000, START + 1);
    const rows = await driver.claim({
      workerId: 'w',
      slots: [{ queue: QUEUE, limit: 10 }],
      visibilityTimeoutMs: VT,
    });
    expect(rows.map((row) => row.runAt)).toEqual([START - 2_000]);
  });

  describe('a worker', () => {
    const handle = job({
      name: 'pg.job',
      queue: QUEUE,
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => undefined,
    });
    const registry = new JobRegistry();
    registry.register(handle);

    it("finds a row another process puts below its driver's low water within LOW_WATER_REFRESH_MS", async () => {
      const clock = frozenClock(START);
      const driver = postgresJobDriver({ executor: db.executor, clock });
      const worker = jobWorker({
        driver,
        registry,
        clock,
        concurrency: 2,
        visibilityTimeoutMs: VT,
      });
      await worker.start();
      try {
        await driver.enqueue(at(START - 500));
        worker.signalEnqueued(QUEUE);
        for (let i = 0; i < 10_000 && worker.stats().completed < 1; i++) await clock.flush();
        expect(worker.stats().completed).toBe(1);
        // the driver now holds a low water of START - 1,000: a row an hour behind it, enqueued by another process
        // (whose driver this one never hears from), lands below it
        const other = postgresJobDriver({ executor: db.executor, clock });
        await other.enqueue(at(START - 3_600_000));
        worker.signalEnqueued(QUEUE);
        for (let i = 0; i < 50; i++) await clock.flush();
        // hidden below the bound (a poll's worth of passes later, still not claimed)
        expect(worker.stats().completed).toBe(1);
        // the bound is refreshed by the first claim LOW_WATER_REFRESH_MS after the one that computed it
        await clock.advance(LOW_WATER_REFRESH_MS);
        worker.signalEnqueued(QUEUE);
        for (let i = 0; i < 10_000 && worker.stats().completed < 2; i++) await clock.flush();
        expect(worker.stats().completed).toBe(2);
      } finally {
        await worker.stop();
      }
    });

    it('claims a row of an excluded tenant, passed over while others were claimed, once its tenant frees', async () => {
      const clock = frozenClock(START);
      const driver = postgresJobDriver({ executor: db.executor, clock });
      const capped = job({
        name: 'pg.capped',
        queue: QUEUE,
        input: t.object({ n: t.number }),
        idempotencyKey: ({ n }) => `n:${n}`,
        tenant: ({ n }) => (n < 0 ? 'slow' : 'fast'),
        run: ({ input }) => (input.n === -1 ? new Promise<void>((r) => gates.push(r)) : undefined),
      });
      const gates: (() => void)[] = [];
      const reg = new JobRegistry();
      reg.register(capped);
      const worker = jobWorker({
        driver,
        registry: reg,
        clock,
        concurrency: 4,
        visibilityTimeoutMs: VT,
        limits: { perTenant: 1 },
      });
      const req = (n: number, runAt: number): EnqueueRequest =>
        at(runAt, {
          name: capped.name,
          input: { n },
          idempotencyKey: `n:${n}`,
          tenantId: n < 0 ? 'slow' : 'fast',
        });
      await worker.start();
      try {
        // the slow tenant's first run blocks; its second waits, excluded, below every row claimed after it
        await driver.enqueueMany([req(-1, START - 500), req(-2, START - 400)]);
        worker.signalEnqueued(QUEUE);
        for (let i = 0; i < 10_000 && gates.length < 1; i++) await clock.flush();
        expect(gates).toHaveLength(1);
        for (let n = 0; n < 5; n++) {
          await driver.enqueue(req(n, clock.now()));
          worker.signalEnqueued(QUEUE);
          for (let i = 0; i < 10_000 && worker.stats().completed < n + 1; i++) await clock.flush();
          await clock.advance(LOW_WATER_REFRESH_MS / 2);
        }
        const completedFast = worker.stats().completed;
        expect(completedFast).toBe(5);
        gates.shift()?.();
        for (let i = 0; i < 10_000 && worker.stats().completed < completedFast + 2; i++) {
          await clock.flush();
          if (i % 20 === 19) await clock.advance(10);
        }
        expect(worker.stats().completed).toBe(completedFast + 2);
        const [row] = await driver.introspect
          .list({ state: 'done', limit: 100 })
          .then((all) => all.filter((r) => (r.input as { n: number }).n === -2));
        expect(row?.state).toBe('done');
      } finally {
        gates.forEach((open) => open());
        await worker.stop();
      }
    });
  });
});
