import type { JobDriver } from '../driver/job-driver';
import type { Clock } from '../util/clock';
import { systemClock } from '../util/clock';
import type { JobsFacade } from './ambient';
import { announceLanded } from './enqueue';
import type { EventBus } from '../events/event-bus';

/** Options of {@link directJobsFacade}. */
export interface DirectJobsFacadeOptions {
  /** The driver every enqueue is written through. */
  readonly driver: JobDriver;
  /** The clock `now()` answers from (default `systemClock`). */
  readonly clock?: Clock;
  /** Told after a row landed, so a worker in this process starts it at once (the in-process wake). */
  readonly onEnqueued?: (queue: string) => void;
  /** The event bus `publishEvent()` publishes on. */
  readonly events?: EventBus;
}

/** The facade that publishes straight to a driver: no transaction is joined. */
export function directJobsFacade(options: DirectJobsFacadeOptions): JobsFacade {
  const clock = options.clock ?? systemClock;
  return {
    now: () => clock.now(),
    ...(options.events === undefined ? {} : { events: options.events }),
    async enqueue(request) {
      const result = await options.driver.enqueue(request);
      if (!result.deduped) options.onEnqueued?.(request.queue);
      return result;
    },
    async enqueueMany(requests) {
      const results = await options.driver.enqueueMany(requests);
      announceLanded(requests, results, options.onEnqueued);
      return results;
    },
  };
}
