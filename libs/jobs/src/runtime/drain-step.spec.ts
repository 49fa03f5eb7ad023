import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { gate } from '../testing/test-kit';

const input = t.object({ n: t.number });

/**
 * A drain (SIGTERM) is a soft stop: it lets what is on the wire finish. A `step.run` whose function is already under
 * way when the drain begins — a charge sent, its answer not yet back — is waited for and stored while the run still
 * holds its lease, so the attempt that takes the run again replays it instead of charging twice. A step not yet
 * started is refused (the body winds down), and the run goes back uncounted.
 */
describe('a drain during a step.run on the wire (memory driver, frozen clock)', () => {
  let h: JobsHarness | undefined;
  let wire = gate();
  afterEach(async () => {
    wire.open();
    await h?.close();
    h = undefined;
    wire = gate();
  });

  it.each([
    ['no step timeout', undefined],
    ['a step timeout', '1m' as const],
  ])(
    '%s: stores the step that finishes after the drain began; the next attempt replays it',
    async (_, stepTimeout) => {
      const charged: number[] = [];
      const after: string[] = [];
      const handle = job({
        name: `drain-step.charge.${stepTimeout ?? 'none'}`,
        input,
        idempotencyKey: ({ n }) => `n:${n}`,
        tenant: 'none',
        ...(stepTimeout === undefined ? {} : { stepTimeout }),
        async run({ step, attempt }) {
          // a charge that ignores its signal: once sent, it completes
          const receipt = await step.run('charge', async () => {
            charged.push(attempt);
            if (attempt === 1) await wire.promise;
            return `receipt-${attempt}`;
          });
          await step.run('email', () => void after.push(receipt));
          return receipt;
        },
      });
      const clock = frozenClock();
      const inner = memoryJobDriver({ clock });
      // kept open across the two workers below
      const driver: JobDriver = { ...inner, close: () => Promise.resolve() };
      h = await runJobs({ jobs: [handle], driver, clock });
      const { id } = await handle.enqueue({ n: 1 });
      await h.settle();
      expect(charged).toEqual([1]);

      h.worker.beginDrain('SIGTERM');
      const stopping = h.worker.stop();
      await h.settle();
      wire.open();
      await stopping;

      // the charge landed while the run held its lease: stored; the step after it was never started
      expect((await h.driver.steps.load(id)).map((s) => [s.name, s.output])).toEqual([
        ['charge', 'receipt-1'],
      ]);
      expect(after).toEqual([]);
      expect(await h.driver.get(id)).toMatchObject({ state: 'ready', attempt: 0 });
      expect(h.worker.stats()).toMatchObject({ interrupted: 1, inFlight: 0 });

      // a new worker takes it again: the charge is replayed, not sent twice
      await h.close();
      h = await runJobs({ jobs: [handle], driver, clock });
      await h.settle();
      expect(charged).toEqual([1]);
      expect(after).toEqual(['receipt-1']);
      expect(await h.driver.get(id)).toMatchObject({ state: 'done' });
      await h.close();
      h = undefined;
      await inner.close();
    },
  );
});
