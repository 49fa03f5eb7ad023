import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import { job } from '../declare/job';
import { memoryBackend } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { JobsModule } from './jobs.module';
import { WorkerHost } from './worker.host';

/**
 * A backend whose `startWake` throws (a bad LISTEN channel, a wake it cannot build): the boot fails with that error,
 * and the worker the host had already started must not stay behind claiming rows in a process whose boot failed.
 */
let runs = 0;
const counted = job({
  name: 'worker-wake-start-failed.job',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: () => void (runs += 1),
});

describe('WorkerHost at bootstrap, with a wake that throws as it starts', () => {
  it('fails the boot and leaves no worker claiming', async () => {
    const clock = frozenClock();
    const backend = memoryBackend({ clock });
    const throwing = {
      ...backend,
      capabilities: { ...backend.capabilities, wake: true },
      startWake: (): never => {
        throw new TypeError('startQueueWake: bad channel wake-1');
      },
    };
    const moduleRef = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({
          backend: throwing,
          clock,
          roles: ['web', 'worker'],
          retention: false,
          shutdown: { deadlineMs: 1_000 },
        }),
        JobsModule.forFeature({ jobs: [{ counted }] }),
      ],
    }).compile();
    const host = moduleRef.get(WorkerHost);
    await expect(moduleRef.init()).rejects.toThrow('bad channel wake-1');
    const leftover = host.worker;
    try {
      // the direct facade was installed before the hosts started: the row lands
      await counted.enqueue({ n: 1 });
      await clock.advance(10_000);
      expect(runs).toBe(0);
      expect(leftover).toBeUndefined();
    } finally {
      leftover?.beginDrain('test');
      await leftover?.stop(clock.now());
    }
  });
});
