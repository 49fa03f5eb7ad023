import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs } from '../testing/run-jobs';

const strange = job({
  name: 'odd-throw.worker',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `odd:${n}`,
  tenant: 'none',
  retry: { attempts: 2, backoff: 'fixed', delay: 1_000, jitter: false },
  run() {
    // no prototype, no toString: String() of it throws
    throw Object.create(null) as unknown;
  },
});

describe('a worker running a body that throws Object.create(null)', () => {
  it('records it, retries on the policy, then dead-letters — never waits out a lease', async () => {
    const h = await runJobs({ jobs: [strange] });
    try {
      const { id } = await strange.enqueue({ n: 1 });
      await h.settle();
      expect(await h.driver.get(id)).toMatchObject({
        state: 'delayed',
        attempt: 1,
        lastError: 'thrown object: {}',
      });
      await h.advance(1_000);
      expect(await h.driver.get(id)).toMatchObject({
        state: 'dead',
        attempt: 2,
        lastError: 'thrown object: {}',
      });
      expect(h.logger.named('jobs.attempt.failed').map((e) => e.fields.outcome)).toEqual([
        'retried',
        'dead-lettered',
      ]);
    } finally {
      await h.close();
    }
  });
});
