import {
  WebhookEndpointInvalidError,
  WebhookEndpointUnknownError,
  WebhookEventInvalidError,
  WebhookEventUnknownError,
  type WebhookErrorSubject,
} from '../errors/webhook-errors';
import {
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TOPIC_HEADER,
  webhookLabelProblem,
} from './webhook-signature';

/** What `endpoint()` answers: where to post, the secret to sign with, and the app's own verdict. */
export interface WebhookEndpoint {
  /** An absolute `https:` (or `http:`) URL. Redirects from it are never followed. */
  readonly url: string;
  /** The HMAC key of this endpoint. Never checkpointed, never logged. */
  readonly secret: string;
  /** The app's own switch: a disabled endpoint is never posted to. */
  readonly disabled?: boolean;
  /** Extra request headers. Merged UNDER the framework's: none of them can set the id, topic or signature. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** What `event()` answers: the topic and the exact body to post (JSON text). */
export interface WebhookEvent {
  /**
   * The event's topic: sent in `x-ultimate-webhook-topic` and signed; non-empty printable ASCII without `:`, and no
   * space at either end (a receiver's HTTP parser strips it, and the mac would no longer verify).
   */
  readonly topic: string;
  /** The exact body posted, as `application/json`, and signed. */
  readonly body: string;
}

/** Headers an endpoint row may not set: the framework's own, and those that would break the request's framing. */
const RESERVED = new Set([
  WEBHOOK_ID_HEADER,
  WEBHOOK_TOPIC_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  'content-length',
  'transfer-encoding',
  'connection',
  'host',
  'expect',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'proxy-connection',
]);

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The endpoint as read, checked: a parsed http(s) URL, a secret, and lower-cased extra headers. */
export interface CheckedEndpoint {
  readonly url: URL;
  readonly secret: string;
  readonly disabled: boolean;
  readonly headers: Readonly<Record<string, string>>;
}

/** Checks what `endpoint()` answered: null is `X_WEBHOOK_ENDPOINT_UNKNOWN`, a bad shape `X_WEBHOOK_ENDPOINT_INVALID`. */
export function checkEndpoint(subject: WebhookErrorSubject, read: unknown): CheckedEndpoint {
  if (read === null || read === undefined) throw new WebhookEndpointUnknownError(subject);
  const invalid = (reason: string): never => {
    throw new WebhookEndpointInvalidError(subject, reason);
  };
  if (typeof read !== 'object') return invalid('endpoint() answered neither an object nor null');
  const e = read as Partial<Record<keyof WebhookEndpoint, unknown>>;
  if (typeof e.secret !== 'string' || e.secret.length === 0) return invalid('it has no secret');
  if (typeof e.url !== 'string') return invalid('it has no url');
  let url: URL;
  try {
    url = new URL(e.url);
  } catch {
    return invalid('its url does not parse');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return invalid(`its url's scheme ${url.protocol} is not http(s)`);
  if (e.disabled !== undefined && typeof e.disabled !== 'boolean')
    return invalid('disabled is not a boolean');
  const headers: Record<string, string> = {};
  if (e.headers !== undefined) {
    if (typeof e.headers !== 'object' || e.headers === null)
      return invalid('headers is not an object');
    for (const [name, value] of Object.entries(e.headers as Record<string, unknown>)) {
      const lower = name.toLowerCase();
      if (!TOKEN.test(name)) return invalid(`header name ${JSON.stringify(name)} is not a token`);
      if (RESERVED.has(lower)) return invalid(`header ${lower} is the framework's to set`);
      if (typeof value !== 'string' || !FIELD_VALUE.test(value))
        return invalid(`header ${lower} has a value a header cannot carry`);
      headers[lower] = value;
    }
  }
  return { url, secret: e.secret, disabled: e.disabled === true, headers };
}

/** Checks what `event()` answered: null is `X_WEBHOOK_EVENT_UNKNOWN`, a bad shape `X_WEBHOOK_EVENT_INVALID`. */
export function checkEvent(subject: WebhookErrorSubject, read: unknown): WebhookEvent {
  if (read === null || read === undefined) throw new WebhookEventUnknownError(subject);
  if (typeof read !== 'object')
    throw new WebhookEventInvalidError(subject, 'event() answered neither an object nor null');
  const e = read as Partial<Record<keyof WebhookEvent, unknown>>;
  const topicProblem = webhookLabelProblem(e.topic);
  if (topicProblem !== undefined)
    throw new WebhookEventInvalidError(subject, `its topic ${topicProblem}`);
  if (typeof e.body !== 'string')
    throw new WebhookEventInvalidError(subject, 'its body is not a string');
  return { topic: e.topic as string, body: e.body };
}
