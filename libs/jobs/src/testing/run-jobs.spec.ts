import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from './frozen-clock';
import { runJobs } from './run-jobs';
import { thrownCode } from './test-kit';

const input = t.object({ n: t.number });

/** A declaration with no inline body: a worker serving it refuses to start (`X_JOB_UNBOUND`). */
const unbound = job({
  name: 'run-jobs.unbound',
  input,
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
});

const bound = job({
  name: 'run-jobs.bound',
  input,
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: () => undefined,
});

describe('runJobs when its worker refuses to start', () => {
  it('rejects with the worker’s code and leaves no facade behind: a later enqueue is X_DRIVER_UNAVAILABLE', async () => {
    expect(await thrownCode(() => runJobs({ jobs: [unbound] }))).toBe('X_JOB_UNBOUND');
    // no facade installed: the enqueue fails at the call, never lands on the failed harness's orphaned driver
    expect(await thrownCode(() => bound.enqueue({ n: 1 }))).toBe('X_DRIVER_UNAVAILABLE');
  });

  it('closes the driver it opened itself, and leaves a driver the test passed to the test', async () => {
    const clock = frozenClock();
    const own = memoryJobDriver({ clock });
    let closes = 0;
    const passed: JobDriver = Object.assign(Object.create(own) as JobDriver, {
      close: async () => {
        closes += 1;
        await own.close();
      },
    });
    expect(await thrownCode(() => runJobs({ jobs: [unbound], driver: passed, clock }))).toBe(
      'X_JOB_UNBOUND',
    );
    expect(closes).toBe(0);
    await own.close();
  });

  it('still installs the facade when the worker starts, and removes it at close', async () => {
    const h = await runJobs({ jobs: [bound] });
    const { id } = await bound.enqueue({ n: 2 });
    await h.settle();
    expect((await h.driver.get(id))?.state).toBe('done');
    await h.close();
    expect(await thrownCode(() => bound.enqueue({ n: 3 }))).toBe('X_DRIVER_UNAVAILABLE');
  });
});
