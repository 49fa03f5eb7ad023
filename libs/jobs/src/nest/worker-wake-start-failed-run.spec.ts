import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import { prepareEnqueue } from '../declare/enqueue';
import { job } from '../declare/job';
import { memoryBackend } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { JobsModule } from './jobs.module';

/**
 * A backend whose `startWake` throws while the worker it just started has a claim on the wire: the failed boot drains
 * the worker, which hands the row that claim took back unstarted — it does not run it in a process whose boot failed,
 * nor wait for it up to `shutdown.deadlineMs`.
 */
let runs = 0;
const held = job({
  name: 'worker-wake-start-failed-run.held',
  input: t.object({}),
  idempotencyKey: () => 'held',
  tenant: 'none',
  // a body that misses an abort signalled before it started: were it started, it would hold the drain to its deadline
  run: ({ signal }) => {
    runs++;
    return new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(signal.reason as Error)),
    );
  },
});

describe('WorkerHost at bootstrap, with a wake that throws after the first claim', () => {
  it('fails the boot and hands the claimed row back unstarted, well before the deadline', async () => {
    const clock = frozenClock();
    const backend = memoryBackend({ clock });
    // due before the boot: the worker's first pass claims it
    const { id } = await backend.driver.enqueue(
      await prepareEnqueue(held, {}, {}, undefined, clock.now()),
    );
    const throwing = {
      ...backend,
      capabilities: { ...backend.capabilities, wake: true },
      startWake: (): never => {
        throw new TypeError('startQueueWake: bad channel wake-2');
      },
    };
    const moduleRef = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({
          backend: throwing,
          clock,
          roles: ['worker'],
          retention: false,
          shutdown: { deadlineMs: 60_000 },
        }),
        JobsModule.forFeature({ jobs: [{ held }] }),
      ],
    }).compile();
    const failed = moduleRef.init().catch((error: unknown) => error);
    try {
      // a second: the hand-back lands, far short of the deadline a boot waiting for the run would need
      await clock.advance(1_000);
      const row = await backend.driver.get(id);
      expect(row).toMatchObject({ state: 'ready', attempt: 0, lastError: null });
      expect(runs).toBe(0);
    } finally {
      // past the deadline whatever happened: the boot settles, and the module can close
      await clock.advance(60_000);
      expect(String(await failed)).toContain('bad channel wake-2');
      await moduleRef.close();
    }
  });
});
