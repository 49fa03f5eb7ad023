import 'reflect-metadata';
import { Controller, HttpCode, Post, UseGuards, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { frozenClock } from '../testing/frozen-clock';
import { WebhookSignatureGuard } from './webhook-guard';
import { signWebhook, verifyWebhookSignature } from './webhook-signature';

const T = 1_750_000_000;
const clock = frozenClock(T * 1000);
const senders: Record<string, string> = { acme: 'acme-secret' };
const senderOf = (req: unknown): string =>
  senders[(req as { params: { sender: string } }).params.sender] as string;

@Controller()
class RefusalsController {
  @Post('hooks')
  @HttpCode(204)
  @UseGuards(new WebhookSignatureGuard({ secret: 'hook-secret', clock }))
  receive(): void {}

  @Post('hooks/:sender')
  @HttpCode(204)
  @UseGuards(new WebhookSignatureGuard({ secret: senderOf, clock }))
  perSender(): void {}
}

/**
 * What anyone can post to a guarded route is refused with 401, never a 500 and an error in the log: a request that is
 * not JSON (so Nest kept no raw body), and one naming a sender the secret lookup does not know.
 */
describe('WebhookSignatureGuard: refusals that are 401, not 500', () => {
  let app: INestApplication;
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      controllers: [RefusalsController],
    }).compile();
    app = moduleRef.createNestApplication({ rawBody: true, logger: false });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
  });

  const body = '{"order":"o-1"}';
  const signed = (secret: string) =>
    signWebhook(secret, { eventId: 'evt_1', topic: 'orders.paid', body, timestampSeconds: T });

  it('a POST with no body or a body that is not JSON is 401 in an app created with rawBody', async () => {
    await request(app.getHttpServer()).post('/hooks').expect(401);
    await request(app.getHttpServer())
      .post('/hooks')
      .set('content-type', 'text/plain')
      .set(signed('hook-secret'))
      .send(body)
      .expect(401);
    await request(app.getHttpServer())
      .post('/hooks')
      .set('content-type', 'application/json')
      .set(signed('hook-secret'))
      .send(body)
      .expect(204);
  });

  it('a sender the secret lookup does not know is 401; a known one is let through', async () => {
    const post = (sender: string, secret: string) =>
      request(app.getHttpServer())
        .post(`/hooks/${sender}`)
        .set('content-type', 'application/json')
        .set(signed(secret))
        .send(body);
    await post('nobody', 'acme-secret').expect(401);
    await post('acme', 'acme-secret').expect(204);
  });

  it('verifyWebhookSignature answers mismatch, never throws, for a secret that is absent', () => {
    const headers = signed('k');
    const absent = [undefined, [undefined, null]] as unknown as readonly string[][];
    for (const secret of absent) {
      expect(verifyWebhookSignature({ headers, body }, { secret, nowMs: T * 1000 })).toEqual({
        ok: false,
        reason: 'mismatch',
      });
    }
  });

  it('a static secret that is no string, list or function is X_INVARIANT where the guard is built', () => {
    const unset = undefined as unknown as string;
    expect(() => new WebhookSignatureGuard({ secret: unset })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
  });
});
