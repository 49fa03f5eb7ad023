import { postgresJobDriver } from '@ultimat3/jobs-pg';
import { redisJobDriver } from '@ultimat3/jobs-redis';
import { pgJobsSpec } from '../../../jobs-pg/test/pg-jobs-spec';
import { resetJobTables } from '../../../jobs-pg/test/test-database';
import { createTestRedis, type TestRedis } from '../../../jobs-redis/test/test-redis';
import type { JobDriver, NackOptions } from '../driver/job-driver';
import { claimOf, type ClaimedJob } from '../driver/job-row';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { uuidv7 } from '../util/ids';
import { MAX_DURATION_MS } from './bounds';

const db = pgJobsSpec();
let redis: TestRedis;

beforeAll(() => {
  redis = createTestRedis();
});

afterAll(async () => {
  await redis?.drop();
});

const T0 = Date.UTC(2026, 0, 1);
const NAME = 'values.nack';
let seq = 0;

/** One driver of each kind, on its own frozen clock at T0 and empty storage. */
async function drivers(): Promise<[string, JobDriver, FrozenClock][]> {
  await resetJobTables(db.executor);
  const clocks = [frozenClock(T0), frozenClock(T0), frozenClock(T0)] as const;
  return [
    ['memory', memoryJobDriver({ clock: clocks[0] }), clocks[0]],
    ['postgres', postgresJobDriver({ executor: db.executor, clock: clocks[1] }), clocks[1]],
    [
      'redis',
      redisJobDriver({ client: redis.client, prefix: redis.prefix(), clock: clocks[2] }),
      clocks[2],
    ],
  ];
}

/** Enqueues a row due now and claims it. */
async function running(driver: JobDriver, clock: FrozenClock): Promise<ClaimedJob> {
  const id = uuidv7(T0 + seq++);
  await driver.enqueue({
    id,
    runId: uuidv7(T0 + seq++),
    name: NAME,
    queue: 'values',
    input: {},
    idempotencyKey: id,
    tenantId: null,
    enqueuedBy: null,
    runAt: clock.now(),
    maxAttempts: 5,
    priority: 0,
    onConflict: 'dedupe',
    concurrencyKey: null,
    traceparent: null,
  });
  const [row] = await driver.claim({
    workerId: 'worker-a',
    visibilityTimeoutMs: 30_000,
    slots: [{ queue: 'values', limit: 1 }],
  });
  if (row === undefined) throw new Error('no row claimed');
  return row;
}

/** What `driver` answers a nack of a fresh running row with `extra`: its code, or the row's state and run time. */
async function nackAnswer(
  driver: JobDriver,
  clock: FrozenClock,
  extra: Record<string, unknown>,
): Promise<unknown> {
  const row = await running(driver, clock);
  const options = { ...claimOf(row), kind: 'retry', error: 'again', ...extra } as NackOptions;
  try {
    const landed = await driver.nack(row.id, options);
    const stored = await driver.get(row.id);
    return { landed, state: stored?.state, runAt: stored?.runAt };
  } catch (error) {
    return { code: errorCodeOf(error) };
  }
}

/** Each driver's answer to `extra`, by driver name. */
async function answers(extra: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, driver, clock] of await drivers()) {
    out[name] = await nackAnswer(driver, clock, extra);
    await driver.close();
  }
  return out;
}

const alike = (answer: unknown) => ({ memory: answer, postgres: answer, redis: answer });

describe("a nack's values: every driver stores them alike, or refuses them with X_VALUE_INVALID", () => {
  it('a run time half a millisecond ahead is stored as whole ms, and the row is ready on every driver', async () => {
    expect(await answers({ runAt: T0 + 0.5 })).toEqual(
      alike({ landed: true, state: 'ready', runAt: T0 }),
    );
    expect(await answers({ kind: 'handBack', runAt: T0 + 1.5 })).toEqual(
      alike({ landed: true, state: 'delayed', runAt: T0 + 1 }),
    );
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a time past year 9999', 8.64e15],
    ['a number past 2^53', 2 ** 53 + 2],
    ['1e20', 1e20],
    ['a string', '5'],
  ])('a run time that is %s is X_VALUE_INVALID on every driver', async (_what, runAt) => {
    expect(await answers({ runAt })).toEqual(alike({ code: 'X_VALUE_INVALID' }));
  });

  it('an error that is not a string or null is X_VALUE_INVALID on every driver', async () => {
    expect(await answers({ error: 42 })).toEqual(alike({ code: 'X_VALUE_INVALID' }));
  });

  it('a duration that is NaN or huge is counted alike (0, or the bound) by every nack and ack', async () => {
    const totals: Record<string, unknown> = {};
    for (const [name, driver, clock] of await drivers()) {
      const a = await running(driver, clock);
      const b = await running(driver, clock);
      const c = await running(driver, clock);
      const answered = [
        await driver.nack(a.id, { ...claimOf(a), kind: 'dead', error: 'x', durationMs: NaN }),
        await driver.nack(b.id, { ...claimOf(b), kind: 'fail', error: 'x', durationMs: 1e20 }),
        await driver.ack(c.id, { ...claimOf(c), durationMs: NaN }).catch(errorCodeOf),
      ];
      const [sum] = (await driver.introspect!.counterTotals()).filter((t) => t.job === NAME);
      totals[name] = { answered, durationMs: sum?.durationMs };
      await driver.close();
    }
    expect(totals).toEqual(alike({ answered: [true, true, true], durationMs: MAX_DURATION_MS }));
  });
});
