import { jobsFacade } from '../declare/ambient';
import { DriverUnavailableError } from '../errors/runtime-errors';
import { eventTenant } from '../runtime/tenant';
import type { JsonValue } from '../util/json';
import { assertEventPublish } from '../values/event';
import type { EventPublishOptions, PublishedEvent } from './event-bus';

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
 * resumes — a run of another tenant never sees it. The name must be an identifier (at most 256 characters, no NUL or
 * lone surrogate), the tenant too, and the payload JSON (nested at most 64 levels, at most 1 MiB): anything else is
 * `X_VALUE_INVALID` naming the field. A wait receives the payload exactly as published — key order, own `__proto__`
 * keys and every string included.
 */
export async function publishEvent(
  name: string,
  payload: JsonValue,
  options: PublishEventOptions = {},
): Promise<PublishedEvent> {
  const bus = jobsFacade().events;
  if (bus === undefined)
    throw new DriverUnavailableError(
      'The installed jobs facade has no event bus',
      "Hand the backend's bus to the facade: directJobsFacade({ driver, events: backend.events }); JobsModule installs it.",
      { notDone: 'the event was not published' },
    );
  return bus.publish(name, payload, eventPublishOptions(name, payload, options));
}

/**
 * What the bus is handed for an event `publishEvent` (or `JobsService.publishEvent`) is asked to publish: the value
 * contract first (`X_VALUE_INVALID` naming `event.name`, `event.tenant`, `event.ttlMs` or `event.payload`), so no bus
 * ever sees a value it would store altered or refuse raw; then the tenant rules (`X_JOB_TENANT_MISMATCH`).
 */
export function eventPublishOptions(
  name: string,
  payload: JsonValue,
  options: PublishEventOptions,
): EventPublishOptions {
  assertEventPublish(name, payload, options);
  const tenant = eventTenant(name, options.tenant);
  return options.ttlMs === undefined ? { tenant } : { ttlMs: options.ttlMs, tenant };
}

/** Forgets every event on the installed bus: the test seam, so one test's answer cannot resume the next test's wait. */
export async function resetEventBus(): Promise<void> {
  await jobsFacade().events?.reset();
}
