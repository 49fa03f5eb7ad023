import { jobsFacade } from '../declare/ambient';
import { DriverUnavailableError } from '../errors/runtime-errors';
import { eventTenant } from '../runtime/tenant';
import type { JsonValue } from '../util/json';
import type { PublishedEvent } from './event-bus';

/** Options of {@link publishEvent}. */
export interface PublishEventOptions {
  /** How long it stays matchable (default one day). */
  readonly ttlMs?: number;
  /**
   * The tenant whose waits it may resume (null: waits of `tenant: 'none'` runs). Inside a run it defaults to the run's
   * tenant, and naming another is `X_JOB_TENANT_MISMATCH` unless inside `crossTenant(reason, …)`. Outside a run it
   * defaults to null: a request publishing for a tenant's waits names that tenant.
   */
  readonly tenant?: string | null;
}

/**
 * Publishes an event on the installed facade's bus: every `step.waitForEvent` of the event's tenant it matches
 * resumes — a run of another tenant never sees it.
 */
export function publishEvent(
  name: string,
  payload: JsonValue,
  options: PublishEventOptions = {},
): Promise<PublishedEvent> {
  const bus = jobsFacade().events;
  if (bus === undefined)
    throw new DriverUnavailableError('The installed jobs facade has no event bus');
  const tenant = eventTenant(name, options.tenant);
  return bus.publish(
    name,
    payload,
    options.ttlMs === undefined ? { tenant } : { ttlMs: options.ttlMs, tenant },
  );
}

/** Forgets every event on the installed bus: the test seam, so one test's answer cannot resume the next test's wait. */
export async function resetEventBus(): Promise<void> {
  await jobsFacade().events?.reset();
}
