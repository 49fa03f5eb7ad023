import 'reflect-metadata';
import { Controller, HttpCode, Post, Req, UseGuards, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { frozenClock } from '../testing/frozen-clock';
import { WebhookSignatureGuard } from './webhook-guard';
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from './webhook-signature';

const T = 1_750_000_000;
const clock = frozenClock(T * 1000);
const received: { eventId: string; topic: string }[] = [];

@Controller()
class HooksController {
  @Post('hooks')
  @HttpCode(204)
  @UseGuards(new WebhookSignatureGuard({ secret: ['old-secret', 'hook-secret'], clock }))
  receive(@Req() req: { webhook: { eventId: string; topic: string } }): void {
    received.push({ eventId: req.webhook.eventId, topic: req.webhook.topic });
  }
}

/** The guard in a real Nest HTTP app (Express, `rawBody: true`), posted to over a socket by supertest. */
describe('WebhookSignatureGuard in a Nest app', () => {
  let app: INestApplication;
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ controllers: [HooksController] }).compile();
    app = moduleRef.createNestApplication({ rawBody: true, logger: false });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
  });

  // the receiver verifies the bytes it was sent, whatever its JSON parser makes of them (key order, spacing)
  const body = '{ "order": "o-1",  "total": 12.5 }';
  const signed = (timestampSeconds = T) =>
    signWebhook('hook-secret', { eventId: 'evt_9', topic: 'orders.paid', body, timestampSeconds });
  const post = (headers: Record<string, string>, payload = body) =>
    request(app.getHttpServer())
      .post('/hooks')
      .set('content-type', 'application/json')
      .set(headers)
      .send(payload);

  it('lets a signed delivery through and hands the route what it verified', async () => {
    await post(signed()).expect(204);
    expect(received).toEqual([{ eventId: 'evt_9', topic: 'orders.paid' }]);
  });

  it('answers 401 to a tampered body, a re-dated signature, a stale replay and an unsigned request', async () => {
    const before = received.length;
    await post(signed(), body.replace('12.5', '1250')).expect(401);
    const redated = signed()[WEBHOOK_SIGNATURE_HEADER]!.replace(`t=${T}`, `t=${T + 1}`);
    await post({ ...signed(), [WEBHOOK_SIGNATURE_HEADER]: redated }).expect(401);
    await post(signed(T - 600)).expect(401);
    await post({}).expect(401);
    expect(received).toHaveLength(before);
  });
});
