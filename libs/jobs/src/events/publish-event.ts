import { jobsFacade } from '../declare/ambient';
import { DriverUnavailableError } from '../errors/runtime-errors';
import type { JsonValue } from '../util/json';
import type { PublishedEvent } from './event-bus';

/** Publishes an event on the installed facade's bus: every `step.waitForEvent` it matches resumes. */
export function publishEvent(
  name: string,
  payload: JsonValue,
  options?: { readonly ttlMs?: number },
): Promise<PublishedEvent> {
  const bus = jobsFacade().events;
  if (bus === undefined)
    throw new DriverUnavailableError('The installed jobs facade has no event bus');
  return bus.publish(name, payload, options);
}

/** Forgets every event on the installed bus: the test seam, so one test's answer cannot resume the next test's wait. */
export async function resetEventBus(): Promise<void> {
  await jobsFacade().events?.reset();
}
