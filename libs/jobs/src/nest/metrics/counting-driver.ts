import type { JobDriver } from '../../driver/job-driver';

/**
 * The driver, telling `landed(queue, rows)` after each enqueue that landed rows — whoever enqueued: the facade, the
 * outbox relay's publish, the scheduler's fire. Every other member is the driver's own, bound to it (a driver class
 * with private fields keeps working behind the proxy).
 */
export function countingEnqueues(
  driver: JobDriver,
  landed: (queue: string, rows: number) => void,
): JobDriver {
  const enqueue: JobDriver['enqueue'] = async (request) => {
    const result = await driver.enqueue(request);
    if (!result.deduped) landed(request.queue, 1);
    return result;
  };
  const enqueueMany: JobDriver['enqueueMany'] = async (requests) => {
    const results = await driver.enqueueMany(requests);
    const perQueue = new Map<string, number>();
    results.forEach((result, i) => {
      const queue = requests[i]?.queue;
      if (!result.deduped && queue !== undefined)
        perQueue.set(queue, (perQueue.get(queue) ?? 0) + 1);
    });
    perQueue.forEach((rows, queue) => landed(queue, rows));
    return results;
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(driver, {
    get(target, key) {
      if (key === 'enqueue') return enqueue;
      if (key === 'enqueueMany') return enqueueMany;
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      if (!bound.has(key)) bound.set(key, (value as (...a: unknown[]) => unknown).bind(target));
      return bound.get(key);
    },
  });
}
