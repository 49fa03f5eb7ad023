import { JobsError } from './jobs-error';

/** What every webhook error carries in its meta: the endpoint and the event of the delivery. */
export interface WebhookErrorSubject {
  /** The id of the endpoint the delivery was posted to. */
  readonly endpointId: string;
  /** The id of the event being delivered. */
  readonly eventId: string;
}

/**
 * A delivery got no answer it could count as received: the connection failed or was reset, or the receiver answered
 * 5xx. Retried on the job's backoff; every such attempt counts toward `disableAfter`.
 */
export class WebhookDeliveryFailedError extends JobsError {
  constructor(
    subject: WebhookErrorSubject,
    detail: string,
    status: number | null,
    cause?: unknown,
  ) {
    super(
      'X_WEBHOOK_DELIVERY_FAILED',
      `Webhook delivery of event ${subject.eventId} to endpoint ${subject.endpointId} failed: ${detail}.`,
      {
        fix: 'Check that the receiver is up and answers 2xx; the job retries on its backoff.',
        cause,
        meta: { ...subject, status },
      },
    );
  }
}

/**
 * The receiver answered a status that is neither 2xx, 429 nor 5xx — a 4xx, or a 3xx, which is never followed (a
 * body signed for one host is not re-posted to another). Retried on the job's backoff; counts toward `disableAfter`.
 */
export class WebhookDeliveryRejectedError extends JobsError {
  constructor(subject: WebhookErrorSubject, status: number, location: string | null) {
    super(
      'X_WEBHOOK_DELIVERY_REJECTED',
      `Webhook endpoint ${subject.endpointId} answered ${status} to event ${subject.eventId}${
        location === null ? '' : ` (redirect to ${location}, not followed)`
      }.`,
      {
        fix:
          status >= 300 && status < 400
            ? 'Store the final URL on the endpoint: redirects are never followed.'
            : 'Fix what the receiver refuses (its secret, its route); the job retries on its backoff.',
        meta: { ...subject, status, location },
      },
    );
  }
}

/**
 * The receiver answered 429 (or 503 with a `Retry-After`): the retry waits the time it named in
 * `meta.retryAfterSeconds`, clamped by the job's `retry.maxDelay`, else the job's backoff. Counts toward
 * `disableAfter`.
 */
export class WebhookDeliveryThrottledError extends JobsError {
  constructor(subject: WebhookErrorSubject, status: number, retryAfterSeconds: number | undefined) {
    super(
      'X_WEBHOOK_DELIVERY_THROTTLED',
      `Webhook endpoint ${subject.endpointId} answered ${status} to event ${subject.eventId}${
        retryAfterSeconds === undefined ? '' : `, retry after ${retryAfterSeconds} s`
      }.`,
      {
        fix: 'Nothing to do: the delivery retries when the receiver said it may.',
        meta: {
          ...subject,
          status,
          ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
        },
      },
    );
  }
}

/**
 * The endpoint is disabled — by its own row, or by the ledger after `disableAfter` consecutive failed attempts — and
 * the delivery is dead-lettered without opening a socket. Terminal; only the app re-enables an endpoint.
 */
export class WebhookEndpointDisabledError extends JobsError {
  constructor(
    subject: WebhookErrorSubject,
    by: 'endpoint' | 'ledger' | 'this-attempt',
    cause?: unknown,
  ) {
    super(
      'X_WEBHOOK_ENDPOINT_DISABLED',
      by === 'this-attempt'
        ? `Webhook endpoint ${subject.endpointId} failed too many times in a row and is now disabled; event ${subject.eventId} is not retried.`
        : `Webhook endpoint ${subject.endpointId} is disabled (${by === 'endpoint' ? 'by its row' : 'by the webhook ledger'}); event ${subject.eventId} was not sent.`,
      {
        fix: 'Fix the receiver, then re-enable the endpoint (ledger.enable(endpointId)) and re-enqueue what dead-lettered.',
        cause,
        meta: { ...subject, by },
      },
    );
  }
}

/**
 * The endpoint read answered something that cannot be delivered to: no `url`/`secret`, a URL that is not http(s), a
 * header the framework owns, or a destination address that is private, loopback or link-local while such addresses
 * are not allowed. Terminal: the same row is refused on every attempt.
 */
export class WebhookEndpointInvalidError extends JobsError {
  constructor(subject: WebhookErrorSubject, reason: string) {
    super(
      'X_WEBHOOK_ENDPOINT_INVALID',
      `Webhook endpoint ${subject.endpointId} cannot be delivered to: ${reason}.`,
      {
        fix: 'Correct the endpoint row (a public https URL, a secret), or allow private destinations in webhook({ destinations }) for an internal receiver.',
        meta: { ...subject, reason },
      },
    );
  }
}

/** The endpoint read answered null: no such endpoint. Terminal. */
export class WebhookEndpointUnknownError extends JobsError {
  constructor(subject: WebhookErrorSubject) {
    super(
      'X_WEBHOOK_ENDPOINT_UNKNOWN',
      `Webhook endpoint ${subject.endpointId} does not exist; event ${subject.eventId} was not sent.`,
      {
        fix: 'Enqueue deliveries only for endpoints the subscription table holds.',
        meta: { ...subject },
      },
    );
  }
}

/**
 * The event read answered something that cannot be signed: a `topic` or `body` that is not a string, or an event id or
 * topic holding `:` (one mac would authenticate two id/topic splits) or a space at either end (a receiver strips it
 * from the header, and the mac would not verify). Terminal.
 */
export class WebhookEventInvalidError extends JobsError {
  constructor(subject: WebhookErrorSubject, reason: string) {
    super(
      'X_WEBHOOK_EVENT_INVALID',
      `Webhook event ${subject.eventId} for endpoint ${subject.endpointId} cannot be sent: ${reason}.`,
      {
        fix: 'Answer { topic, body } with a string body (the JSON to post), and no ":" nor edge space in the event id or topic.',
        meta: { ...subject, reason },
      },
    );
  }
}

/** The event read answered null: no such event. Terminal. */
export class WebhookEventUnknownError extends JobsError {
  constructor(subject: WebhookErrorSubject) {
    super(
      'X_WEBHOOK_EVENT_UNKNOWN',
      `Webhook event ${subject.eventId} does not exist; nothing was sent to endpoint ${subject.endpointId}.`,
      {
        fix: 'Enqueue deliveries for events already committed (enqueue in the same transaction, through the outbox).',
        meta: { ...subject },
      },
    );
  }
}
