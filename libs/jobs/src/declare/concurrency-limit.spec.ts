import type { JobsBackend } from '../driver/backend';
import { memoryBackend } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { scratchPostgres, type ScratchBackend } from '../../test/scratch-backends';
import { MAX_CONCURRENCY_LIMIT } from './concurrency';
import { job } from './job';

let n = 0;
const declare = (concurrency: unknown): unknown => {
  try {
    return job({
      name: `concurrency-limit-spec-${++n}`,
      input: t.object({ k: t.string }),
      idempotencyKey: ({ k }) => k,
      tenant: 'none',
      concurrency: concurrency as number,
    });
  } catch (error) {
    return errorCodeOf(error);
  }
};

/**
 * A declared cap is the slot count every attempt hands its driver's lease store. PostgreSQL's takes it as an `int`
 * (`generate_series(0, $4::int - 1)`): a limit past 2^31 - 1 was accepted by `job()` (and by the memory driver) and
 * then met a raw 22003 at every attempt's acquire on PostgreSQL, and a limit in range costs the acquire a walk of that
 * many slots. `job()` refuses a limit past MAX_CONCURRENCY_LIMIT, where it is written.
 */
describe('a concurrency limit every lease store takes', () => {
  jest.setTimeout(30_000);
  let pg: ScratchBackend;
  let memory: JobsBackend;
  beforeAll(async () => {
    pg = await scratchPostgres('x_concurrency_limit', frozenClock());
    memory = memoryBackend({ clock: frozenClock() });
  });
  afterAll(async () => {
    await pg?.backend.close();
    await pg?.drop();
  });

  it.each([2 ** 31, 3_000_000_000, Number.MAX_SAFE_INTEGER])(
    'a limit of %d, which PostgreSQL cannot take, is refused at job() (plain and keyed)',
    async (limit) => {
      // what the attempts of such a job would have met on PostgreSQL
      await expect(
        pg.backend.driver.leases?.acquire(`job:big-${limit}`, 'holder', limit, 10_000),
      ).rejects.toThrow();
      expect(declare(limit)).toBe('X_JOB_DECLARATION_INVALID');
      expect(declare({ key: () => 'k', limit })).toBe('X_JOB_DECLARATION_INVALID');
      expect(declare(MAX_CONCURRENCY_LIMIT + 1)).toBe('X_JOB_DECLARATION_INVALID');
    },
  );

  it('the largest limit job() accepts is taken by the PostgreSQL and the memory lease stores', async () => {
    const handle = declare({ key: () => 'k', limit: MAX_CONCURRENCY_LIMIT });
    expect(typeof handle).toBe('object');
    const limit = (handle as { concurrency: { limit: number } }).concurrency.limit;
    expect(limit).toBe(MAX_CONCURRENCY_LIMIT);
    for (const backend of [pg.backend, memory]) {
      const leases = backend.driver.leases;
      expect(await leases?.acquire('job-key:max:k', 'first', limit, 10_000)).toBe(true);
      expect(await leases?.acquire('job-key:max:k', 'second', limit, 10_000)).toBe(true);
      expect((await leases?.holders('job-key:max:k'))?.map((h) => h.slot)).toEqual([0, 1]);
    }
  });
});
