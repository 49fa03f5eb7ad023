import { errorCodeOf, memoryJobDriver, type EnqueueRequest, type JobDriver } from '@ultimat3/jobs';
import fc from 'fast-check';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { resetJobTables } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresJobDriver } from './pg-driver';

/** A request of a generated case: the key it names, and whether it is strict. */
interface Made {
  readonly key: number;
  readonly strict: boolean;
}

const IDS = 5;
const KEYS = 3;
const made = fc.record({ key: fc.nat(KEYS - 1), strict: fc.boolean() });
const pick = fc.nat(IDS - 1);

/**
 * A generated case: a few requests, each an id with its key and strictness (an id named twice is the same request
 * sent twice, as a retry sends it); some of them stored first (one enqueue each), then ONE batch of them, repeats
 * included, over a few keys.
 */
const scenario = fc.record({
  requests: fc.array(made, { minLength: IDS, maxLength: IDS }),
  stored: fc.array(pick, { maxLength: 3 }),
  batch: fc.array(pick, { minLength: 1, maxLength: 8 }),
});

/** What a driver answered a batch: its results, or the code it refused with. */
type Answer = { readonly results: unknown } | { readonly code: string | undefined };

/** What a driver holds afterwards for each id of the case: the row's run id and key, or nothing. */
async function holdings(driver: JobDriver, ids: readonly string[]): Promise<unknown[]> {
  return Promise.all(
    ids.map(async (id) => {
      const row = await driver.get(id);
      return row === undefined ? null : [row.runId, row.idempotencyKey, row.state];
    }),
  );
}

/** Runs one case on `driver`: the stored requests one by one (a refused one is part of the case), then the batch. */
async function play(
  driver: JobDriver,
  stored: readonly EnqueueRequest[],
  batch: readonly EnqueueRequest[],
): Promise<{ answer: Answer; held: unknown[] }> {
  for (const r of stored) await driver.enqueue(r).catch(() => undefined);
  let answer: Answer;
  try {
    answer = { results: await driver.enqueueMany(batch) };
  } catch (error) {
    answer = { code: errorCodeOf(error) };
  }
  const ids = [...new Set([...stored, ...batch].map((r) => r.id))];
  return { answer, held: await holdings(driver, ids) };
}

/**
 * Random batches repeating ids and keys, with strict requests among them, over rows already stored: PostgreSQL answers
 * every request as the memory driver does (the reference for "as if enqueued one after another"), and stores the same
 * rows — over a shared pool (the optimistic plain insert first, then the conflict-tolerant statements) and over an
 * executor that is not shared (those statements alone).
 */
describe('postgres enqueueMany agrees with the memory driver on generated batches', () => {
  const db = pgJobsSpec({ poolSize: 4 });

  const agreeOver = (shared: boolean) => async () => {
    const driver = postgresJobDriver({ executor: pgPoolExecutor(db.pool, { shared }) });
    await fc.assert(
      fc.asyncProperty(scenario, async ({ requests, stored, batch }) => {
        await resetJobTables(db.executor);
        const all = requests.map((m: Made) =>
          request({ idempotencyKey: `k${m.key}`, onConflict: m.strict ? 'error' : 'dedupe' }),
        );
        const requestOf = (i: number): EnqueueRequest => all[i] as EnqueueRequest;
        const storedRequests = stored.map(requestOf);
        const batchRequests = batch.map(requestOf);
        const tested = await play(driver, storedRequests, batchRequests);
        const reference = await play(memoryJobDriver(), storedRequests, batchRequests);
        expect(tested).toEqual(reference);
      }),
      { numRuns: 150 },
    );
  };

  it('over a shared pool', agreeOver(true), 120_000);
  it('over an executor that is not shared', agreeOver(false), 120_000);
});
