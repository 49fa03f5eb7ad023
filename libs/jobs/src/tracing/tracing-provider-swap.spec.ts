import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs } from '../testing/run-jobs';
import { startInMemoryTracing } from '../../../../test/in-memory-tracing';
import { tracingOn } from './run-span';

const ping = job({
  name: 'trace-swap.ping',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `ping:${n}`,
  tenant: 'none',
  run: () => undefined,
});

/** Runs one job to completion on a fresh harness. */
async function runOnce(n: number): Promise<void> {
  const h = await runJobs({ jobs: [ping] });
  try {
    await ping.enqueue({ n });
    await h.settle();
  } finally {
    await h.close();
  }
}

describe('a tracer provider registered, unregistered and registered again in one process', () => {
  it('spans go to the provider registered now: none after it is unregistered, the new one after that', async () => {
    const first = startInMemoryTracing();
    await runOnce(1);
    expect(first.spans().map((s) => s.name)).toEqual(['job trace-swap.ping']);
    await first.stop();

    expect(tracingOn()).toBe(false);
    await runOnce(2);

    const second = startInMemoryTracing();
    try {
      expect(tracingOn()).toBe(true);
      await runOnce(3);
      expect(
        second.spans().map((s) => [s.name, s.attributes['jobs.job.id'] !== undefined]),
      ).toEqual([['job trace-swap.ping', true]]);
    } finally {
      await second.stop();
    }
  });
});
