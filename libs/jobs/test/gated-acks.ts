import type { AckManyItem, JobDriver } from '../src/driver/job-driver';
import { memoryJobDriver } from '../src/driver/memory';
import { frozenClock } from '../src/testing/frozen-clock';
import { uuidv7 } from '../src/util/ids';
import { enqueueRequest } from './requests';

/** A memory driver whose `ackMany` calls wait until the test releases them, recording each batch. */
export function gatedAcks(clock = frozenClock()) {
  const inner = memoryJobDriver({ clock });
  const batches: string[][] = [];
  const waiting: (() => void)[] = [];
  const driver: JobDriver = {
    ...inner,
    ackMany: (items: readonly AckManyItem[]) => {
      batches.push(items.map((i) => i.jobId));
      return new Promise((resolve) => waiting.push(() => resolve(inner.ackMany!(items))));
    },
  };
  const releaseAll = async (): Promise<void> => {
    while (waiting.length > 0) {
      waiting.shift()?.();
      await clock.flush();
    }
  };
  return { clock, inner, driver, batches, waiting, releaseAll };
}

/** A request of `batch.job` numbered `n` on `queue`, due now on `clock`. */
export const batchRequest = (clock: { now(): number }, n: number, queue = 'q') =>
  enqueueRequest({
    id: uuidv7(clock.now() + n),
    name: 'batch.job',
    queue,
    input: { n },
    idempotencyKey: `n:${n}`,
    runAt: clock.now(),
  });
