import type { StandardSchemaV1 } from '@standard-schema/spec';
import { job } from '../declare/job';
import { runJobs, type JobsHarness } from '../testing/run-jobs';

interface Order {
  readonly n: number;
}

/**
 * An input schema whose validator accepts the enqueue's parses (the input, then the form it is stored in), then throws
 * (or, async, rejects) on every later one — a refinement or a DTO `@Transform` that throws on a stored payload, rather
 * than answering issues.
 */
function breakingSchema(async: boolean): StandardSchemaV1<Order, Order> {
  let calls = 0;
  const check = (value: unknown): StandardSchemaV1.Result<Order> => {
    calls += 1;
    if (calls > 2) throw new Error('transform blew up');
    return { value: value as Order };
  };
  return {
    '~standard': {
      version: 1,
      vendor: 'test',
      validate: (value: unknown) =>
        async ? Promise.resolve().then(() => check(value)) : check(value),
    },
  };
}

/**
 * A validator that throws while the worker parses a claimed row's input fails the attempt like any other failure —
 * retried after its back-off with the error stored as `lastError` — instead of rejecting the attempt, which left the
 * row running, its error only in a log line, until its lease lapsed (and on the last attempt buried it as lapsed).
 */
describe('a validator that throws on a claimed row fails the attempt (memory driver, frozen clock)', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it.each([
    ['synchronous', false],
    ['async', true],
  ])('%s validator: retried with the error stored, no execute-failed', async (_, async) => {
    const ran: number[] = [];
    const handle = job({
      name: `validator-throws.${async ? 'async' : 'sync'}`,
      input: breakingSchema(async),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 3, backoff: 'fixed', delay: 1_000, jitter: false },
      run: ({ input }) => void ran.push(input.n),
    });
    h = await runJobs({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    expect(ran).toEqual([]);
    expect(h.logger.named('jobs.worker.execute-failed')).toHaveLength(0);
    const row = await h.driver.get(id);
    expect(row).toMatchObject({ state: 'delayed', attempt: 1 });
    expect(row?.lastError).toContain('transform blew up');
    expect(h.worker.stats()).toMatchObject({ retried: 1, inFlight: 0 });
  });
});
