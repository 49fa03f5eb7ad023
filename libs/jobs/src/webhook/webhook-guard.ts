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

/** Options of {@link WebhookSignatureGuard}. */
export interface WebhookGuardOptions {
  /**
   * The endpoint's secret (several during a rotation), or a function of the request answering it — a receiver
   * serving many senders looks the secret up by a route parameter.
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
  constructor(private readonly options: WebhookGuardOptions) {}

  /**
   * Verifies the request's signature over its raw body: sets `request.webhook` and answers true, or throws 401
   * (`InvariantError` when there is no raw body).
   */
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<RawBodyRequest>();
    const body =
      request.rawBody ??
      (typeof request.body === 'string' || Buffer.isBuffer(request.body)
        ? request.body
        : undefined);
    if (body === undefined) {
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
