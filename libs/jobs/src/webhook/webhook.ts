import { job } from '../declare/job';
import type { RetryPolicy } from '../declare/retry-policy';
import { JobDeclarationInvalidError } from '../errors/declaration-errors';
import { t } from '../schema/t';
import { systemClock, type Clock } from '../util/clock';
import type { Duration } from '../util/duration';
import type { WebhookDestinations } from './webhook-destination';
import { deliverWebhook, type WebhookDelivered, type WebhookInput } from './webhook-delivery';
import type { WebhookLedger } from './webhook-ledger';
import type { WebhookEndpoint, WebhookEvent } from './webhook-reads';

/** The default `User-Agent` of a delivery. */
export const WEBHOOK_USER_AGENT = 'ultimat3-jobs-webhook/1';

/** What `webhook()` takes. */
export interface WebhookDefinition {
  /** The job's durable name. */
  readonly name: string;
  /**
   * The org that owns the endpoint, from the input (`({ orgId }) => orgId`), or `'none'` for endpoints no tenant
   * owns. An `orgId` on the input that is not the run's org (any orgId under `'none'`) is `X_JOB_TENANT_MISMATCH`
   * before either read: terminal. An input for which it answers no org is refused at `enqueue()`
   * (`X_JOB_TENANT_REQUIRED`), and a tenant that is neither a function nor `'none'` where it is declared.
   */
  readonly tenant: ((input: WebhookInput) => string | undefined) | 'none';
  /**
   * Reads the endpoint, once per ATTEMPT and never checkpointed (it carries the secret). Null is
   * `X_WEBHOOK_ENDPOINT_UNKNOWN`.
   */
  readonly endpoint: (
    input: WebhookInput,
  ) => Promise<WebhookEndpoint | null> | WebhookEndpoint | null;
  /** Reads the event: its topic and the exact body to post. Null is `X_WEBHOOK_EVENT_UNKNOWN`. */
  readonly event: (input: WebhookInput) => Promise<WebhookEvent | null> | WebhookEvent | null;
  /** Where every attempt is recorded and an endpoint's disabled verdict is kept. */
  readonly ledger: WebhookLedger;
  /** Consecutive failed attempts (across deliveries) that disable the endpoint. Re-enabling is the app's. */
  readonly disableAfter: number;
  /**
   * Bounds one attempt (no timeout unless declared). Set it below the worker's drain budget: a POST on the wire when
   * SIGTERM lands is let finish, and only the timeout tears it down.
   */
  readonly timeout?: Duration;
  /** Default the job default (3 attempts, exponential from 1 s); `maxDelay` also clamps a `Retry-After`. */
  readonly retry?: RetryPolicy;
  /** The queue the deliveries run on. Default the job default. */
  readonly queue?: string;
  /** Which addresses may be posted to (default: public addresses only). */
  readonly destinations?: WebhookDestinations;
  /** Where the signature's timestamp and the ledger's times are read. Default the system clock. */
  readonly clock?: Clock;
  /** The `User-Agent` header (default {@link WEBHOOK_USER_AGENT}): printable ASCII, checked at declaration. */
  readonly userAgent?: string;
}

/** An id a delivery names: non-empty, bounded, printable ASCII (it travels in a header) without `:` (it is signed). */
const deliveryId = t.string
  .min(1)
  .max(200)
  .regex(/^[\x20-\x39\x3b-\x7e]+$/);

/**
 * The event id: a {@link deliveryId} that neither begins nor ends with a space — its header's value reaches the
 * receiver with those stripped, so the mac over the id as signed would never verify there.
 */
const eventIdSchema = deliveryId.regex(
  /^(?! ).*[^ ]$/,
  'expected no space at either end (a receiver strips it from the header, and the signature would not verify)',
);

/** The input of every webhook job. */
const WEBHOOK_INPUT = t.object({
  endpointId: deliveryId,
  eventId: eventIdSchema,
  orgId: t.string.min(1).optional(),
});

/**
 * Declares a webhook: a job delivering ONE event to ONE endpoint per enqueue (`deliver.enqueue({ endpointId, eventId,
 * orgId })`), so retry, backoff and disable-after-N are per endpoint. The fan-out over subscribers is the app's own
 * loop. Deduped per (endpoint, event). Each attempt is signed at send time (`x-ultimate-webhook-signature:
 * t=<s>,v1=<hex>` over `v1:<t>:<eventId>:<topic>:<body>`), posted without following redirects, to a public address
 * unless `destinations` allow more, and recorded in the ledger before its outcome is thrown.
 */
export function webhook(definition: WebhookDefinition) {
  const { name } = definition;
  for (const field of ['endpoint', 'event'] as const) {
    if (typeof definition[field] !== 'function')
      throw new JobDeclarationInvalidError(name, field, 'must be a function of the input');
  }
  const ledger: unknown = definition.ledger;
  if (
    typeof ledger !== 'object' ||
    ledger === null ||
    !['record', 'isDisabled', 'disable'].every(
      (m) => typeof (ledger as Record<string, unknown>)[m] === 'function',
    )
  )
    throw new JobDeclarationInvalidError(name, 'ledger', 'must be a WebhookLedger');
  if (!Number.isSafeInteger(definition.disableAfter) || definition.disableAfter < 1)
    throw new JobDeclarationInvalidError(
      name,
      'disableAfter',
      'must be a whole number of at least 1',
    );
  // sent on every attempt: a value node refuses to put in a header would fail each one before a byte is sent,
  // recorded against endpoints that did nothing wrong until disableAfter turned them off
  if (
    definition.userAgent !== undefined &&
    (typeof definition.userAgent !== 'string' || !/^[\x20-\x7e]+$/.test(definition.userAgent))
  )
    throw new JobDeclarationInvalidError(
      name,
      'userAgent',
      'must be a non-empty string of printable ASCII (it travels in a header)',
    );
  // a resolver that is no function fails every attempt's lookup, counted against endpoints that did nothing wrong; an
  // allowPrivate that is no boolean would be read as false, refusing the internal receivers it was meant to allow
  const destinations: unknown = definition.destinations;
  if (destinations !== undefined && destinations !== null) {
    const d = destinations as Partial<Record<keyof WebhookDestinations, unknown>>;
    if (typeof d !== 'object')
      throw new JobDeclarationInvalidError(name, 'destinations', 'must be an object');
    if (d.allowPrivate !== undefined && typeof d.allowPrivate !== 'boolean')
      throw new JobDeclarationInvalidError(name, 'destinations.allowPrivate', 'must be a boolean');
    if (d.resolve !== undefined && typeof d.resolve !== 'function')
      throw new JobDeclarationInvalidError(name, 'destinations.resolve', 'must be a function');
  }
  const config = {
    name,
    endpoint: definition.endpoint,
    event: definition.event,
    ledger: definition.ledger,
    disableAfter: definition.disableAfter,
    destinations: definition.destinations ?? {},
    clock: definition.clock ?? systemClock,
    userAgent: definition.userAgent ?? WEBHOOK_USER_AGENT,
  };
  const tenantOf = definition.tenant;
  const handle = job({
    name,
    input: WEBHOOK_INPUT,
    idempotencyKey: ({ endpointId, eventId }) => `${endpointId}:${eventId}`,
    // an undefined answer reaches the job's own check, which refuses the enqueue with X_JOB_TENANT_REQUIRED; a tenant
    // that is neither a function nor 'none' (a JS caller's) is handed on as it is, for job() to refuse here
    tenant: typeof tenantOf === 'function' ? (input) => tenantOf(input) as string : tenantOf,
    ...(definition.queue === undefined ? {} : { queue: definition.queue }),
    ...(definition.retry === undefined ? {} : { retry: definition.retry }),
    ...(definition.timeout === undefined ? {} : { timeout: definition.timeout }),
    run: ({ input, ctx }): Promise<WebhookDelivered> => deliverWebhook(config, input, ctx),
  });
  return handle;
}
