import type { Clock } from '../src/util/clock';
import type { JobDriver } from '../src/driver/job-driver';
import { memoryJobDriver } from '../src/driver/memory';

/**
 * A memory driver on `clock` that pushes `driver.close` onto `order` when it is closed: what the shutdown-order specs
 * compare with the log events around it.
 */
export function closeRecordingDriver(clock: Clock, order: string[]): JobDriver {
  const memory = memoryJobDriver({ clock });
  return {
    ...memory,
    close: async () => {
      order.push('driver.close');
      await memory.close();
    },
  };
}
