import type { EnqueueRequest, EnqueueResult, JobDriver } from '../../driver/job-driver';
import type { SchedulerState } from '../../scheduler/scheduler-state';

/** Tells `landed(queue, rows)` once per queue of the rows `results` says landed (a deduplicated one landed none). */
function tally(
  requests: readonly EnqueueRequest[],
  results: readonly EnqueueResult[],
  landed: (queue: string, rows: number) => void,
): void {
  const perQueue = new Map<string, number>();
  results.forEach((result, i) => {
    const queue = requests[i]?.queue;
    if (!result.deduped && queue !== undefined) perQueue.set(queue, (perQueue.get(queue) ?? 0) + 1);
  });
  perQueue.forEach((rows, queue) => landed(queue, rows));
}

/**
 * The driver, telling `landed(queue, rows)` after each enqueue that landed rows — whoever enqueued through it: the
 * facade, the outbox relay's publish (a scheduler's fire lands through its state: {@link countingFires}). Every other
 * member is the driver's own (see `withOwn`).
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
    tally(requests, results, landed);
    return results;
  };
  return withOwn(driver, { enqueue, enqueueMany });
}

/**
 * The scheduler state, telling `landed(queue, rows)` after each fire that landed rows: a state fires in its own write
 * (PostgreSQL's moves the watermark and inserts the rows in one statement), never through the counting driver.
 */
export function countingFires(
  state: SchedulerState,
  landed: (queue: string, rows: number) => void,
): SchedulerState {
  const fire: SchedulerState['fire'] = async (request) => {
    const result = await state.fire(request);
    tally(request.requests, result.results, landed);
    return result;
  };
  return withOwn(state, { fire });
}

/**
 * `target` with the members of `own` answered by them; every other function member bound to `target` (a class with
 * private fields keeps working behind the proxy).
 */
function withOwn<T extends object>(target: T, own: Partial<T>): T {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(t, k) {
      if (Object.hasOwn(own, k)) return own[k as keyof T];
      const member: unknown = Reflect.get(t, k, t);
      if (typeof member !== 'function') return member;
      if (!bound.has(k)) bound.set(k, (member as (...a: unknown[]) => unknown).bind(t));
      return bound.get(k);
    },
  });
}
