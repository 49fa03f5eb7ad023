import { ValueInvalidError } from '../errors/value-errors';
import {
  MAX_DURATION_MS,
  MAX_EVENT_NAME_LENGTH,
  MAX_EVENT_PAYLOAD_BYTES,
  MAX_TENANT_LENGTH,
} from './bounds';
import { jsonProblem } from './json-value';
import { integerProblem } from './scalars';
import { describeValue, identifierProblem } from './text';
import type { ValueFault } from './request';

/** What an event is published with, as a bus's `publish` takes it. */
export interface EventPublishValues {
  readonly ttlMs?: unknown;
  readonly tenant?: unknown;
}

/** Why `name` cannot name an event, or undefined: an identifier of at most {@link MAX_EVENT_NAME_LENGTH}. */
export function eventNameProblem(name: unknown): string | undefined {
  return identifierProblem(name, MAX_EVENT_NAME_LENGTH);
}

/**
 * Why `tenant` cannot scope an event, or undefined: null (none) or an identifier of at most {@link MAX_TENANT_LENGTH}.
 * The empty string is refused: a driver that keys "no tenant" as '' would match it with null and another would not.
 */
function eventTenantProblem(tenant: unknown): string | undefined {
  return tenant === null || tenant === undefined
    ? undefined
    : identifierProblem(tenant, MAX_TENANT_LENGTH);
}

/** Why `payload` cannot be published, or undefined: JSON as a job's input is, and at most 1 MiB of it. */
function payloadProblem(payload: unknown): string | undefined {
  const problem = jsonProblem(payload);
  if (problem !== undefined) return `is not storable JSON: ${problem}`;
  const bytes = Buffer.byteLength(JSON.stringify(payload));
  return bytes > MAX_EVENT_PAYLOAD_BYTES
    ? `is ${bytes} bytes of JSON, over the ${MAX_EVENT_PAYLOAD_BYTES} allowed`
    : undefined;
}

/** The first rule an event to publish breaks, or undefined when every bus stores it exactly. */
export function eventPublishFault(
  name: unknown,
  payload: unknown,
  options: EventPublishValues = {},
): ValueFault | undefined {
  const rules: [string, () => string | undefined][] = [
    ['name', () => eventNameProblem(name)],
    ['tenant', () => eventTenantProblem(options.tenant)],
    [
      'ttlMs',
      () =>
        options.ttlMs === undefined ? undefined : integerProblem(options.ttlMs, 1, MAX_DURATION_MS),
    ],
    ['payload', () => payloadProblem(payload)],
  ];
  for (const [field, problem] of rules) {
    const reason = problem();
    if (reason !== undefined) return { field, reason };
  }
  return undefined;
}

/**
 * Refuses, with `X_VALUE_INVALID` naming the field (`event.name`, `event.tenant`, `event.ttlMs`, `event.payload`), an
 * event no bus can store exactly. `publishEvent` calls it before any bus sees the event, and every bus at its door,
 * so each answers alike — never a database's raw error.
 */
export function assertEventPublish(
  name: unknown,
  payload: unknown,
  options?: EventPublishValues,
): void {
  const fault = eventPublishFault(name, payload, options);
  if (fault !== undefined) throw new ValueInvalidError(`event.${fault.field}`, fault.reason);
}

/** Refuses, with `X_VALUE_INVALID`, a lookup no bus can answer: its name, time and tenant under the publish rules. */
export function assertEventFind(name: unknown, sinceMs: unknown, tenant: unknown): void {
  const rules: [string, string | undefined][] = [
    ['name', eventNameProblem(name)],
    [
      'sinceMs',
      typeof sinceMs === 'number' && Number.isFinite(sinceMs)
        ? undefined
        : `must be a finite number (got ${describeValue(sinceMs)})`,
    ],
    ['tenant', eventTenantProblem(tenant)],
  ];
  for (const [field, reason] of rules) {
    if (reason !== undefined) throw new ValueInvalidError(`event.${field}`, reason);
  }
}
