import {
  job,
  JobRegistry,
  jobWorker,
  LOW_WATER_REFRESH_MS,
  t,
  uuidv7,
  type ClaimedJob,
  type ClaimSlot,
  type EnqueueRequest,
} from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { request } from '../test/requests';
import { createTestDatabase, resetJobTables, type TestDatabase } from '../test/test-database';
import { postgresJobDriver } from './driver/pg-driver';

const VT = 30_000;
const QUEUE = 'pg-q';
const START = Date.UTC(2026, 0, 1);

/**
 * The claim's low water (`ClaimSlot.lowWater`): a hint that lets the waiting scan start past the index entries a held
 * snapshot keeps alive, never a correctness dependency.
 */
describe('claim low water (PostgreSQL, driven clock)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  beforeEach(async () => {
    await resetJobTables(db.executor);
  });

  const at = (runAt: number, overrides: Partial<EnqueueRequest> = {}): EnqueueRequest =>
    request({ id: uuidv7(runAt), runAt, ...overrides });

  it('reports the least run time of every waiting row, excluded tenants and rows it takes included', async () => {
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: db.executor, clock });
    await driver.enqueueMany([
      at(START - 50_000, { tenantId: 'capped' }),
      at(START - 40_000),
      at(START + 60_000),
    ]);
    const reported: [string, number][] = [];
    const rows = await driver.claim({
      workerId: 'w',
      slots: [{ queue: QUEUE, limit: 1, lowWater: null }],
      visibilityTimeoutMs: VT,
      excludeTenants: ['capped'],
      onLowWater: (queue, bound) => reported.push([queue, bound]),
    });
    expect(rows.map((row) => row.runAt)).toEqual([START - 40_000]);
    expect(reported).toEqual([[QUEUE, START - 50_000]]);
  });

  it('reports at most the claim time less a second, and nothing when not asked', async () => {
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const reported: number[] = [];
    const claim = (lowWater?: number | null): Promise<readonly ClaimedJob[]> =>
      driver.claim({
        workerId: 'w',
        slots: [
          lowWater === undefined
            ? { queue: QUEUE, limit: 1 }
            : { queue: QUEUE, limit: 1, lowWater },
        ],
        visibilityTimeoutMs: VT,
        onLowWater: (_queue, bound) => reported.push(bound),
      });
    await claim(null);
    expect(reported).toEqual([START - 1_000]);
    await driver.enqueue(at(START + 10_000));
    await claim(null);
    expect(reported).toEqual([START - 1_000, START - 1_000]);
    await claim(START - 1_000);
    await claim();
    expect(reported).toHaveLength(2);
  });

  it('claims the same rows in the same order with a bound as without when none is below it', async () => {
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const requests = [
      at(START - 30_000, { priority: 5 }),
      at(START - 20_000, { priority: 5 }),
      at(START - 25_000, { priority: 2 }),
      at(START - 10_000, { priority: 5 }),
      // enqueued last, run last, highest priority: claimed first
      at(START - 5_000, { priority: 0 }),
    ];
    // one row a claim, so the order the claim picks in shows (a claim's rows come back in no particular order)
    const claimInOrder = async (
      slot: (n: number) => ClaimSlot,
    ): Promise<(string | undefined)[]> => {
      await resetJobTables(db.executor);
      await driver.enqueueMany(requests);
      const ids: (string | undefined)[] = [];
      for (let n = 0; n < requests.length + 1; n++) {
        const rows = await driver.claim({
          workerId: 'w',
          slots: [slot(n)],
          visibilityTimeoutMs: VT,
        });
        ids.push(...rows.map((row) => row.id));
      }
      return ids;
    };
    const order = [4, 2, 0, 1, 3].map((i) => requests[i]?.id);
    expect(await claimInOrder(() => ({ queue: QUEUE, limit: 1 }))).toEqual(order);
    expect(
      await claimInOrder(() => ({ queue: QUEUE, limit: 1, lowWater: START - 30_000 })),
    ).toEqual(order);
    // refreshing claims bound nothing yet take the same rows
    expect(await claimInOrder(() => ({ queue: QUEUE, limit: 1, lowWater: null }))).toEqual(order);
    let reported = Number.NaN;
    await resetJobTables(db.executor);
    await driver.enqueueMany(requests);
    await driver.claim({
      workerId: 'w',
      slots: [{ queue: QUEUE, limit: 10, lowWater: null }],
      visibilityTimeoutMs: VT,
      onLowWater: (_queue, bound) => {
        reported = bound;
      },
    });
    expect(reported).toBe(START - 30_000);
  });

  it('skips rows below the bound: the hint is what bounds the scan', async () => {
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: db.executor, clock });
    await driver.enqueueMany([at(START - 10_000), at(START - 2_000)]);
    const rows = await driver.claim({
      workerId: 'w',
      slots: [{ queue: QUEUE, limit: 10, lowWater: START - 5_000 }],
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

    it('finds a row that lands below its low water within LOW_WATER_REFRESH_MS', async () => {
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
        // the worker now holds a low water of START - 1,000: a row an hour behind it lands below it
        await driver.enqueue(at(START - 3_600_000));
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
