import type { JobRunContext } from '../declare/run-args';
import { errorCodeOf } from '../errors/jobs-error';
import {
  WebhookDeliveryFailedError,
  WebhookDeliveryRejectedError,
  WebhookDeliveryThrottledError,
  WebhookEndpointDisabledError,
  WebhookEndpointInvalidError,
  type WebhookErrorSubject,
} from '../errors/webhook-errors';
import { JobTenantMismatchError } from '../runtime/tenant';
import type { Clock } from '../util/clock';
import { retryAfterSeconds } from './retry-after';
import type { WebhookDestinations } from './webhook-destination';
import type { WebhookAttemptOutcome, WebhookLedger } from './webhook-ledger';
import { postWebhook, stoppedReason, type WebhookPostResult } from './webhook-post';
import {
  checkEndpoint,
  checkEvent,
  type WebhookEndpoint,
  type WebhookEvent,
} from './webhook-reads';
import { signWebhook } from './webhook-signature';

/** What a webhook job takes: the endpoint and the event by id, and the org that owns the endpoint. */
export interface WebhookInput {
  /** The endpoint to post to, read through the declaration's `endpoint()` on every attempt. */
  readonly endpointId: string;
  /** The event to post, read through the declaration's `event()` on every attempt. */
  readonly eventId: string;
  /** The endpoint's org; required by a `tenant: ({ orgId }) => orgId` declaration, absent under `'none'`. */
  readonly orgId?: string | undefined;
}

/** What a delivered attempt answers (the job's result). */
export interface WebhookDelivered {
  /** The endpoint posted to. */
  readonly endpointId: string;
  /** The event delivered. */
  readonly eventId: string;
  /** The 2xx status the receiver answered. */
  readonly status: number;
}

/** Everything one attempt needs, fixed at declaration. */
export interface WebhookDeliveryConfig {
  readonly name: string;
  readonly endpoint: (
    input: WebhookInput,
  ) => Promise<WebhookEndpoint | null> | WebhookEndpoint | null;
  readonly event: (input: WebhookInput) => Promise<WebhookEvent | null> | WebhookEvent | null;
  readonly ledger: WebhookLedger;
  readonly disableAfter: number;
  readonly destinations: WebhookDestinations;
  readonly clock: Clock;
  readonly userAgent: string;
}

/** The ledger outcome and the error an answer (or its absence) comes to; `undefined` error for a 2xx. */
function classify(
  subject: WebhookErrorSubject,
  result: WebhookPostResult,
  nowMs: number,
): { outcome: WebhookAttemptOutcome; status: number | null; error: Error | undefined } {
  if (result.kind === 'refused')
    return {
      outcome: 'refused',
      status: null,
      error: new WebhookEndpointInvalidError(subject, result.reason),
    };
  if (result.kind === 'failed')
    return {
      outcome: 'failed',
      status: null,
      error: new WebhookDeliveryFailedError(subject, result.reason, null, result.error),
    };
  const { status } = result;
  if (status >= 200 && status < 300) return { outcome: 'delivered', status, error: undefined };
  const after = retryAfterSeconds(result.retryAfter, result.date, nowMs);
  if (status === 429 || (status === 503 && after !== undefined))
    return {
      outcome: 'throttled',
      status,
      error: new WebhookDeliveryThrottledError(subject, status, after),
    };
  if (status >= 500 || status < 200)
    return {
      outcome: 'failed',
      status,
      error: new WebhookDeliveryFailedError(subject, `the receiver answered ${status}`, status),
    };
  const location = status < 400 ? (result.location ?? '(none)') : null;
  return {
    outcome: 'rejected',
    status,
    error: new WebhookDeliveryRejectedError(subject, status, location),
  };
}

/**
 * One delivery attempt: the payload's org checked against the run's, the endpoint and the event read (never
 * checkpointed), the endpoint's and the ledger's disabled asked, the body signed at send time and posted once, the
 * attempt recorded, the endpoint disabled when the failures in a row reach `disableAfter`, and only then the outcome
 * thrown. A POST stopped by the run's signal writes no ledger row: the job is handed on, and that attempt's failure
 * must not count toward `disableAfter`.
 */
export async function deliverWebhook(
  config: WebhookDeliveryConfig,
  input: WebhookInput,
  ctx: JobRunContext,
): Promise<WebhookDelivered> {
  const runOrg = ctx.actor.orgId;
  if (input.orgId !== undefined && input.orgId !== runOrg)
    throw new JobTenantMismatchError(runOrg, input.orgId, 'was handed a delivery owned by');
  const subject: WebhookErrorSubject = { endpointId: input.endpointId, eventId: input.eventId };
  const endpoint = checkEndpoint(subject, await config.endpoint(input));
  const event = checkEvent(subject, await config.event(input));
  if (endpoint.disabled) throw new WebhookEndpointDisabledError(subject, 'endpoint');
  if (await config.ledger.isDisabled(input.endpointId))
    throw new WebhookEndpointDisabledError(subject, 'ledger');
  const startedAt = config.clock.now();
  let result: WebhookPostResult;
  try {
    const signed = signWebhook(endpoint.secret, {
      eventId: input.eventId,
      topic: event.topic,
      body: event.body,
      timestampSeconds: Math.floor(startedAt / 1000),
    });
    result = await postWebhook(
      {
        url: endpoint.url,
        headers: {
          ...endpoint.headers,
          'content-type': 'application/json',
          'user-agent': config.userAgent,
          ...signed,
        },
        body: Buffer.from(event.body, 'utf8'),
        destinations: config.destinations,
      },
      // a drain stops the run's signal: a POST not yet on the wire stays unsent; one on the wire runs to its answer,
      // unless a hard stop (the deadline, a lost lease — also after the drain) tears it down
      { hard: ctx.hardSignal, soft: ctx.signal },
    );
  } catch (error) {
    const stopped = stoppedReason(error);
    throw stopped === undefined ? error : stopped.reason;
  }
  return settleAttempt(config, input, ctx, event.topic, startedAt, result);
}

/**
 * Records what one POST came to, then answers the delivery or throws its error — the endpoint disabled first when
 * this failure is the `disableAfter`-th in a row (the attempt then throws `X_WEBHOOK_ENDPOINT_DISABLED`: terminal,
 * since every retry would be refused before its socket anyway).
 */
async function settleAttempt(
  config: WebhookDeliveryConfig,
  input: WebhookInput,
  ctx: JobRunContext,
  topic: string,
  startedAt: number,
  result: WebhookPostResult,
): Promise<WebhookDelivered> {
  const subject: WebhookErrorSubject = { endpointId: input.endpointId, eventId: input.eventId };
  const nowMs = config.clock.now();
  const verdict = classify(subject, result, nowMs);
  const code = verdict.error === undefined ? null : (errorCodeOf(verdict.error) ?? null);
  const failures = await config.ledger.record({
    ...subject,
    topic,
    orgId: ctx.actor.orgId,
    jobId: ctx.jobId,
    runId: ctx.runId,
    attempt: ctx.attempt,
    outcome: verdict.outcome,
    status: verdict.status,
    code,
    error: verdict.error === undefined ? null : verdict.error.message,
    attemptedAtMs: startedAt,
    durationMs: Math.max(0, nowMs - startedAt),
  });
  if (verdict.error === undefined) return { ...subject, status: verdict.status ?? 0 };
  if (failures >= config.disableAfter) {
    await config.ledger.disable(input.endpointId, { failures, atMs: nowMs, code });
    throw new WebhookEndpointDisabledError(subject, 'this-attempt', verdict.error);
  }
  throw verdict.error;
}
