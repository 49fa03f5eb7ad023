import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs, type JobsHarness } from '../testing/run-jobs';

const HOUR = 3_600_000;

/**
 * A sleep or wait suspends the run by throwing: a body that catches it (a `try` around the sleep, a catch-all that
 * logs) must not go on as if the wait were over — every later step throws the suspension again, and the run parks on
 * it whatever the body does next: returns, or throws something else.
 */
describe('a suspension the body catches', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** A job whose body catches its one-hour sleep, then does `after` — and counts what ran. */
  function caught(name: string, after: 'step' | 'return' | 'throw') {
    const calls = { body: 0, next: 0 };
    const handle = job({
      name,
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `${name}:${n}`,
      tenant: 'none',
      retry: { attempts: 1 },
      async run({ step }) {
        calls.body++;
        try {
          await step.sleep('nap', '1h');
        } catch (error) {
          if (after === 'throw') throw new Error(`wrapped: ${String(error)}`);
        }
        if (after === 'step') {
          await step.run('next', () => {
            calls.next++;
          });
        }
      },
    });
    return { handle, calls };
  }

  it('throws the suspension again from the next step, which runs only once the sleep is over', async () => {
    const { handle, calls } = caught('caught-suspension.step', 'step');
    h = await runJobs({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    expect((await h.driver.get(id))?.state).toBe('suspended');
    expect(calls).toEqual({ body: 1, next: 0 });
    await h.advance(HOUR);
    expect((await h.driver.get(id))?.state).toBe('done');
    expect(calls).toEqual({ body: 2, next: 1 });
  });

  it('parks the run when the body returns after catching it: the job is not done before its sleep is', async () => {
    const { handle, calls } = caught('caught-suspension.return', 'return');
    h = await runJobs({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    expect((await h.driver.get(id))?.state).toBe('suspended');
    await h.advance(HOUR - 1);
    expect((await h.driver.get(id))?.state).toBe('suspended');
    await h.advance(1);
    expect((await h.driver.get(id))?.state).toBe('done');
    expect(calls.body).toBe(2);
  });

  it('parks the run when the body throws another error after catching it: no attempt is spent', async () => {
    const { handle } = caught('caught-suspension.throw', 'throw');
    h = await runJobs({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    const row = await h.driver.get(id);
    expect([row?.state, row?.lastError]).toEqual(['suspended', null]);
    await h.advance(HOUR);
    expect((await h.driver.get(id))?.state).toBe('done');
  });
});
