import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs } from '../testing/run-jobs';

/** How many frames deep the caller is. */
function stackDepth(): number {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = Infinity;
  try {
    return (new Error().stack ?? '').split('\n').length;
  } finally {
    Error.stackTraceLimit = limit;
  }
}

describe('runs whose input parses and whose body answers at once', () => {
  it('start one after another, not one inside the last: a held buffer of 2,000 is a loop, not a recursion', async () => {
    const clock = frozenClock();
    const memory = memoryJobDriver({ clock });
    // every claim takes what is queued, whatever its slots ask: 2,000 rows held behind one slot
    const driver: JobDriver = Object.create(memory) as JobDriver;
    driver.claim = (options) =>
      memory.claim({
        ...options,
        slots: options.slots.map((slot) => ({ ...slot, limit: 2_000 })),
      });
    const depths: number[] = [];
    const handle = job({
      name: 'sync-bodies.depth',
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => {
        depths.push(stackDepth());
      },
    });
    const h = await runJobs({ jobs: [handle], driver, clock, concurrency: 1 });
    try {
      await handle.enqueueMany(Array.from({ length: 2_000 }, (_, n) => ({ n })));
      while (h.worker.stats().completed < 2_000) await h.advance(10);
      expect(depths).toHaveLength(2_000);
      // a recursion would add a dozen frames per run; a loop stays where the first run started
      expect(Math.max(...depths) - Math.min(...depths)).toBeLessThan(40);
    } finally {
      await h.close();
    }
  });
});
