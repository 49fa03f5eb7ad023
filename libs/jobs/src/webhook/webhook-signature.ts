import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvariantError } from '../errors/runtime-errors';

/** The header carrying the event id of a delivery. */
export const WEBHOOK_ID_HEADER = 'x-ultimate-webhook-id';
/** The header carrying the event's topic. */
export const WEBHOOK_TOPIC_HEADER = 'x-ultimate-webhook-topic';
/** The header carrying `t=<unix seconds>,v1=<hex hmac-sha256>`. */
export const WEBHOOK_SIGNATURE_HEADER = 'x-ultimate-webhook-signature';
/** How far a signature's timestamp may be from the verifier's clock, either way (default 5 minutes). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** What one signature covers: the event id, its topic, the exact body posted, and the send time. */
export interface WebhookSignedParts {
  /** The event's id (the `x-ultimate-webhook-id` header): non-empty printable ASCII without `:` or edge spaces. */
  readonly eventId: string;
  /** The event's topic (the `x-ultimate-webhook-topic` header): non-empty printable ASCII without `:` or edge spaces. */
  readonly topic: string;
  /** The exact bytes posted (a string is read as UTF-8). */
  readonly body: string | Uint8Array;
  /** Send time, whole unix seconds. */
  readonly timestampSeconds: number;
}

/**
 * Why `id`/`topic` may not be signed, if it may not: it must be non-empty printable ASCII without `:`, neither beginning
 * nor ending with a space. One mac over `v1:t:evt:01HZ:orders.paid:<body>` would otherwise authenticate two different
 * id/topic splits, and a receiver's HTTP parser strips a header value's edge spaces, so it would verify a label other
 * than the one signed.
 */
export function webhookLabelProblem(label: unknown): string | undefined {
  if (typeof label !== 'string' || label.length === 0) return 'is not a non-empty string';
  if (label.includes(':')) return 'holds ":"';
  // it travels in a header: printable ASCII only, so no client refuses it and no proxy rewrites it
  if (!/^[\x20-\x7e]+$/.test(label)) return 'holds a character outside printable ASCII';
  if (label.startsWith(' ') || label.endsWith(' ')) return 'begins or ends with a space';
  return undefined;
}

/** The hex HMAC-SHA256 under `secret` of `v1:<t>:<eventId>:<topic>:<body>`. */
export function webhookMac(secret: string, parts: WebhookSignedParts): string {
  const mac = createHmac('sha256', secret);
  mac.update(`v1:${parts.timestampSeconds}:${parts.eventId}:${parts.topic}:`);
  mac.update(parts.body);
  return mac.digest('hex');
}

/**
 * The three headers a delivery carries beyond its content type: the id, the topic and the signature
 * `t=<timestampSeconds>,v1=<mac>`. The timestamp is inside the mac, so a captured delivery re-dated to slip back into
 * a receiver's freshness window no longer verifies. Throws `X_INVARIANT` for an id or topic holding `:` or a
 * character outside printable ASCII, or beginning or ending with a space, and for a timestamp that is not whole unix
 * seconds.
 */
export function signWebhook(secret: string, parts: WebhookSignedParts): Record<string, string> {
  for (const [name, label] of [
    ['eventId', parts.eventId],
    ['topic', parts.topic],
  ] as const) {
    const problem = webhookLabelProblem(label);
    if (problem !== undefined) {
      throw new InvariantError(
        `signWebhook: ${name} ${problem}.`,
        `Sign an ${name} of printable ASCII with no ":" (one mac must not authenticate two id/topic splits) and no space at either end (a receiver strips it).`,
      );
    }
  }
  if (!Number.isSafeInteger(parts.timestampSeconds) || parts.timestampSeconds < 0) {
    throw new InvariantError(
      'signWebhook: timestampSeconds must be whole unix seconds.',
      'Pass Math.floor(Date.now() / 1000) (or your clock, in seconds).',
    );
  }
  return {
    [WEBHOOK_ID_HEADER]: parts.eventId,
    [WEBHOOK_TOPIC_HEADER]: parts.topic,
    [WEBHOOK_SIGNATURE_HEADER]: `t=${parts.timestampSeconds},v1=${webhookMac(secret, parts)}`,
  };
}

/** A received request as the verifier reads it: its headers and its raw body, exactly as received. */
export interface WebhookRequestLike {
  /** The request's headers as the framework parsed them: looked up in any case; a header given twice counts as missing. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The raw body (Nest: `req.rawBody` with `NestFactory.create(AppModule, { rawBody: true })`). */
  readonly body: string | Uint8Array | undefined;
}

/** Options of {@link verifyWebhookSignature}. */
export interface VerifyWebhookOptions {
  /** The endpoint's secret; several during a rotation (any one verifying is enough). */
  readonly secret: string | readonly string[];
  /** Seconds a timestamp may differ from `nowMs` (default {@link WEBHOOK_TOLERANCE_SECONDS}). */
  readonly toleranceSeconds?: number;
  /** The verifier's time in ms (default `Date.now()`). */
  readonly nowMs?: number;
}

/** Why a delivery was refused. */
export type WebhookRefusal = 'missing' | 'malformed' | 'stale' | 'mismatch';

/** The verdict: the delivery's id, topic and send time, or why it was refused. */
export type WebhookVerification =
  | {
      readonly ok: true;
      readonly eventId: string;
      readonly topic: string;
      readonly timestampSeconds: number;
    }
  | { readonly ok: false; readonly reason: WebhookRefusal };

const SIGNATURE = /^t=(\d{1,15}),v1=([0-9a-f]{64})$/;

/** One header's value: a repeated header is refused (two signatures is not one). */
function single(value: string | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  return value.length === 1 ? value[0] : undefined;
}

/** Header lookup by lower-case name, whatever case the framework kept. */
function header(request: WebhookRequestLike, name: string): string | undefined {
  const direct = request.headers[name];
  if (direct !== undefined) return single(direct);
  for (const [key, value] of Object.entries(request.headers)) {
    if (key.toLowerCase() === name) return single(value);
  }
  return undefined;
}

/**
 * Verifies a received delivery: the three headers present, the timestamp within `toleranceSeconds` of now (a replay
 * later than that is `stale`), and the v1 mac over the raw body equal to one of the secrets' — compared in constant
 * time. Never throws for a bad request; answers why it was refused. Fails closed: a tolerance or `nowMs` that is not
 * a number refuses as `stale`, and an empty secret verifies nothing — nor does one that is not a string (a per-sender
 * lookup that found none answers `undefined`: that sender is refused as `mismatch`, not thrown on).
 */
export function verifyWebhookSignature(
  request: WebhookRequestLike,
  options: VerifyWebhookOptions,
): WebhookVerification {
  const eventId = header(request, WEBHOOK_ID_HEADER);
  const topic = header(request, WEBHOOK_TOPIC_HEADER);
  const signature = header(request, WEBHOOK_SIGNATURE_HEADER);
  const body = request.body;
  if (eventId === undefined || topic === undefined || signature === undefined || body === undefined)
    return { ok: false, reason: 'missing' };
  const match = SIGNATURE.exec(signature.trim());
  if (
    match === null ||
    webhookLabelProblem(eventId) !== undefined ||
    webhookLabelProblem(topic) !== undefined
  )
    return { ok: false, reason: 'malformed' };
  const timestampSeconds = Number(match[1]);
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = (options.nowMs ?? Date.now()) / 1000;
  // written to fail closed: a tolerance or a time that is not a number (NaN) refuses, never skips the window
  if (!(Math.abs(nowSeconds - timestampSeconds) <= tolerance))
    return { ok: false, reason: 'stale' };
  const given = Buffer.from(match[2]!, 'hex');
  // read as unknown: a secret looked up per request may be absent whatever its declared type says
  const option: unknown = options.secret;
  const secrets: readonly unknown[] = Array.isArray(option) ? option : [option];
  let verified = false;
  // every secret is tried (no early exit), so the time taken does not say which one matched
  for (const secret of secrets) {
    // the empty key is anyone's: a mac under it authenticates nothing (the sender refuses to sign with it); an absent
    // one (`undefined`) is no key at all
    if (typeof secret !== 'string' || secret.length === 0) continue;
    const expected = Buffer.from(
      webhookMac(secret, { eventId, topic, body, timestampSeconds }),
      'hex',
    );
    if (timingSafeEqual(expected, given)) verified = true;
  }
  return verified
    ? { ok: true, eventId, topic, timestampSeconds }
    : { ok: false, reason: 'mismatch' };
}
