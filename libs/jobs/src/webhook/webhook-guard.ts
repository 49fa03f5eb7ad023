import { UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { InvariantError } from '../errors/runtime-errors';
import { systemClock, type Clock } from '../util/clock';
import { verifyWebhookSignature, type WebhookRequestLike } from './webhook-signature';

/** The request as the guard reads it: Express or Fastify, with Nest's `rawBody` on. */
interface RawBodyRequest {
  readonly headers: WebhookRequestLike['headers'];
  readonly rawBody?: Buffer;
  readonly body?: unknown;
  webhook?: { readonly eventId: string; readonly topic: string; readonly timestampSeconds: number };
}

/** Whether a `content-type` header names `application/json` (what every delivery is posted as). */
function isJson(contentType: string | readonly string[] | undefined): boolean {
  if (typeof contentType !== 'string') return false;
  return contentType.split(';', 1)[0]!.trim().toLowerCase() === 'application/json';
}

/** Options of {@link WebhookSignatureGuard}. */
export interface WebhookGuardOptions {
  /**
   * The endpoint's secret (several during a rotation), or a function of the request answering it — a receiver
   * serving many senders looks the secret up by a route parameter; one answering no secret (`undefined`, a sender it
   * does not know) verifies nothing, so the request is refused with 401. A value that is none of the three (an unset
   * `process.env` entry) is `X_INVARIANT` when the guard is constructed.
   */
  readonly secret:
    | string
    | readonly string[]
    | ((request: unknown) => string | readonly string[] | Promise<string | readonly string[]>);
  /** Seconds a signature's timestamp may differ from now (default 300). */
  readonly toleranceSeconds?: number;
  /** The receiver's clock (default the system clock). */
  readonly clock?: Clock;
}

/**
 * A Nest guard for a route that RECEIVES webhooks: verifies the `x-ultimate-webhook-signature` over the raw body
 * (`NestFactory.create(AppModule, { rawBody: true })`), refusing a missing, malformed, stale (replayed later than the
 * tolerance, or re-dated) or forged delivery with 401. A verified request carries `request.webhook` (`eventId`,
 * `topic`, `timestampSeconds`); dedupe on `eventId` — delivery is at least once.
 *
 * ```ts
 * @Post('hooks') @UseGuards(new WebhookSignatureGuard({ secret: process.env.HOOK_SECRET! }))
 * ```
 */
export class WebhookSignatureGuard implements CanActivate {
  constructor(private readonly options: WebhookGuardOptions) {
    const secret: unknown = options.secret;
    if (typeof secret !== 'string' && typeof secret !== 'function' && !Array.isArray(secret)) {
      throw new InvariantError(
        `WebhookSignatureGuard: secret is ${secret === null ? 'null' : typeof secret}, neither a string, a list of them nor a function.`,
        'Pass the endpoint secret (is its environment variable set?), the secrets of a rotation, or a lookup.',
      );
    }
  }

  /**
   * Verifies the request's signature over its raw body: sets `request.webhook` and answers true, or throws 401 — also
   * for a request that is not `application/json` and so has no raw body (`InvariantError` when a JSON one has none:
   * the app was not created with `rawBody: true`).
   */
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<RawBodyRequest>();
    const body =
      request.rawBody ??
      (typeof request.body === 'string' || Buffer.isBuffer(request.body)
        ? request.body
        : undefined);
    if (body === undefined) {
      // a delivery is always application/json, which Nest's `rawBody` keeps: a request of another type (or none) is
      // no delivery and is refused like one with no signature — only a JSON one without it means rawBody is off
      if (!isJson(request.headers['content-type']))
        throw new UnauthorizedException('Webhook signature refused: missing.');
      throw new InvariantError(
        'WebhookSignatureGuard: the request has no raw body to verify.',
        'Create the app with NestFactory.create(AppModule, { rawBody: true }).',
      );
    }
    const { secret } = this.options;
    const verdict = verifyWebhookSignature(
      { headers: request.headers, body },
      {
        secret: typeof secret === 'function' ? await secret(request) : secret,
        nowMs: (this.options.clock ?? systemClock).now(),
        ...(this.options.toleranceSeconds === undefined
          ? {}
          : { toleranceSeconds: this.options.toleranceSeconds }),
      },
    );
    if (!verdict.ok)
      throw new UnauthorizedException(`Webhook signature refused: ${verdict.reason}.`);
    request.webhook = {
      eventId: verdict.eventId,
      topic: verdict.topic,
      timestampSeconds: verdict.timestampSeconds,
    };
    return true;
  }
}
