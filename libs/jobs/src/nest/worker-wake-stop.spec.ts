import 'reflect-metadata';
import { expectClosedByDeadline } from '../../test/closed-by-deadline';
import { Test } from '@nestjs/testing';
import { job } from '../declare/job';
import { memoryBackend } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { JobsModule } from './jobs.module';

/**
 * A worker's wake whose stop never settles: the LISTEN session's goodbye to a server gone silent (a partition — the
 * client's end() waits for an answer that never comes). The shutdown's deadline bounds the close phase's every wait.
 */
const served = job({
  name: 'worker-wake-stop.job',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: () => undefined,
});

describe('WorkerHost at shutdown, with a wake whose stop hangs', () => {
  it('stops the worker and lets the shutdown finish by its deadline', async () => {
    const clock = frozenClock();
    const backend = memoryBackend({ clock });
    let stopsAsked = 0;
    const hanging = {
      ...backend,
      capabilities: { ...backend.capabilities, wake: true },
      startWake: () => ({
        stop: () => {
          stopsAsked += 1;
          return new Promise<void>(() => undefined);
        },
      }),
    };
    const moduleRef = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({
          backend: hanging,
          clock,
          roles: ['web', 'worker'],
          retention: false,
          shutdown: { deadlineMs: 1_000 },
        }),
        JobsModule.forFeature({ jobs: [{ served }] }),
      ],
    }).compile();
    const app = await moduleRef.init();

    await expectClosedByDeadline(app, clock, 1_000, () => expect(stopsAsked).toBe(1));
  });
});
