import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import { memoryBackend } from '../driver/memory';
import type { JobsBackend } from '../driver/backend';
import { JobDrainedError } from '../errors/runtime-errors';
import { memoryEventBus } from '../events/memory-event-bus';
import { t } from '../schema';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { gate } from '../testing/test-kit';
import { recordingLogger } from '../util/logger';
import { enqueueRequest } from '../../test/requests';
import { scratchPostgres } from '../../test/scratch-backends';
import { uuidv7 } from '../util/ids';
import { executeJob } from './execute-job';
import { RunAbort } from './run-abort';

/** One backend this file opens for real; `drop` removes its storage. */
interface Opened {
  readonly backend: JobsBackend;
  drop(): Promise<void>;
}

const BACKENDS: readonly [string, (clock: FrozenClock) => Promise<Opened>][] = [
  [
    'memory',
    (clock) => Promise.resolve({ backend: memoryBackend({ clock }), drop: async () => {} }),
  ],
  ['PostgreSQL', (clock) => scratchPostgres('x_drain_step', clock)],
];

const charge = job({
  name: 'drain-step.drivers',
  queue: 'drain-step-drivers',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
});

/**
 * The attempt under a drain, on each driver: a `step.run` on the wire when the drain begins is stored through the
 * driver's fenced step write while the claim still holds the row; the run goes back uncounted and its next attempt
 * replays the step.
 */
describe.each(BACKENDS)('a drain during a step.run on the wire, on %s', (_label, open) => {
  jest.setTimeout(30_000);
  let clock: FrozenClock;
  let opened: Opened;
  let driver: JobDriver;
  beforeAll(async () => {
    clock = frozenClock();
    opened = await open(clock);
    driver = opened.backend.driver;
  });
  afterAll(async () => {
    await opened?.backend.close();
    await opened?.drop();
  });

  it('stores the step, hands the run back uncounted, and the next attempt replays it', async () => {
    const id = uuidv7(clock.now());
    await driver.enqueue(
      enqueueRequest({
        id,
        runId: uuidv7(clock.now()),
        name: charge.name,
        queue: charge.queue,
        input: { n: 1 },
        idempotencyKey: `k-${id}`,
        runAt: clock.now(),
        maxAttempts: 3,
      }),
    );
    const charged: number[] = [];
    const after: string[] = [];
    const wire = gate();
    const sent = gate();
    const attempt = async (abort: RunAbort) => {
      const [claimed] = await driver.claim({
        workerId: 'w',
        slots: [{ queue: charge.queue, limit: 1 }],
        visibilityTimeoutMs: 30_000,
      });
      if (claimed?.id !== id) throw new Error(`expected to claim ${id}`);
      return executeJob({
        driver,
        claimed,
        abort,
        clock,
        logger: recordingLogger(),
        events: memoryEventBus({ clock }),
        job: {
          handle: charge,
          async body({ step, attempt: n }) {
            const receipt = await step.run('charge', async () => {
              charged.push(n);
              sent.open();
              if (n === 1) await wire.promise;
              return `receipt-${n}`;
            });
            await step.run('email', () => void after.push(receipt));
            return receipt;
          },
        },
      });
    };

    const first = new RunAbort();
    const running = attempt(first);
    await sent.promise;
    first.abort(new JobDrainedError('w', 'SIGTERM'));
    wire.open();
    expect((await running).outcome).toBe('interrupted');
    expect((await driver.steps.load(id)).map((s) => [s.name, s.output])).toEqual([
      ['charge', 'receipt-1'],
    ]);
    expect(after).toEqual([]);
    expect(await driver.get(id)).toMatchObject({ state: 'ready', attempt: 0 });

    const second = await attempt(new RunAbort());
    expect(second).toMatchObject({ outcome: 'completed', result: 'receipt-1' });
    expect(charged).toEqual([1]);
    expect(after).toEqual(['receipt-1']);
  });
});
