import { createHmac } from 'node:crypto';
import { UnauthorizedException, type ExecutionContext } from '@nestjs/common';
import { frozenClock } from '../testing/frozen-clock';
import { retryAfterSeconds } from './retry-after';
import { WebhookSignatureGuard } from './webhook-guard';
import {
  signWebhook,
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
  type WebhookRequestLike,
} from './webhook-signature';

const T = 1_700_000_000;
const parts = { eventId: 'evt_01HZ', topic: 'orders.paid', body: '{"a":1}', timestampSeconds: T };

describe('signWebhook / verifyWebhookSignature', () => {
  it('signs v1:<t>:<eventId>:<topic>:<body> with HMAC-SHA256 in the documented headers', () => {
    const expected = createHmac('sha256', 'k')
      .update(`v1:${T}:evt_01HZ:orders.paid:{"a":1}`)
      .digest('hex');
    expect(signWebhook('k', parts)).toEqual({
      'x-ultimate-webhook-id': 'evt_01HZ',
      'x-ultimate-webhook-topic': 'orders.paid',
      'x-ultimate-webhook-signature': `t=${T},v1=${expected}`,
    });
  });

  it('refuses ":" in an id or a topic: one mac would authenticate two splits', () => {
    expect(() => signWebhook('k', { ...parts, eventId: 'evt:01HZ' })).toThrow(/eventId holds ":"/);
    expect(() => signWebhook('k', { ...parts, topic: 'orders:paid' })).toThrow(/topic holds ":"/);
    expect(() => signWebhook('k', { ...parts, topic: 'orders.payé' })).toThrow(/printable ASCII/);
    expect(() => signWebhook('k', { ...parts, eventId: 'evt\r\nx-forged' })).toThrow(
      /printable ASCII/,
    );
    expect(() => signWebhook('k', { ...parts, eventId: 'evt:01HZ' })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT', fix: expect.stringContaining('no ":"') }),
    );
  });

  const request = (headers: Record<string, string>, body = parts.body): WebhookRequestLike => ({
    headers,
    body,
  });

  it('verifies within the window, with any of the rotating secrets, whatever the header case', () => {
    const signed = signWebhook('new', parts);
    const upper = Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.toUpperCase(), v]));
    expect(
      verifyWebhookSignature(request(upper), { secret: ['old', 'new'], nowMs: T * 1000 + 299_000 }),
    ).toEqual({
      ok: true,
      eventId: 'evt_01HZ',
      topic: 'orders.paid',
      timestampSeconds: T,
    });
  });

  it('refuses a stale, a tampered, a malformed and an incomplete delivery', () => {
    const signed = signWebhook('k', parts);
    const at = (ms: number) => ({ secret: 'k', nowMs: ms });
    expect(verifyWebhookSignature(request(signed), at(T * 1000 + 301_000))).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(verifyWebhookSignature(request(signed), at(T * 1000 - 301_000))).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(verifyWebhookSignature(request(signed, '{"a":2}'), at(T * 1000))).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    const retopic = { ...signed, 'x-ultimate-webhook-topic': 'orders.refunded' };
    expect(verifyWebhookSignature(request(retopic), at(T * 1000))).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    const garbled = { ...signed, [WEBHOOK_SIGNATURE_HEADER]: 'v1=abc,t=1' };
    expect(verifyWebhookSignature(request(garbled), at(T * 1000))).toEqual({
      ok: false,
      reason: 'malformed',
    });
    const { [WEBHOOK_SIGNATURE_HEADER]: _dropped, ...unsigned } = signed;
    expect(verifyWebhookSignature(request(unsigned), at(T * 1000))).toEqual({
      ok: false,
      reason: 'missing',
    });
  });
});

describe('WebhookSignatureGuard', () => {
  const contextOf = (req: object): ExecutionContext =>
    ({ switchToHttp: () => ({ getRequest: () => req }) }) as unknown as ExecutionContext;

  it('lets a signed raw body through and tells the route what it verified; 401 for a replay', async () => {
    const clock = frozenClock(T * 1000);
    const guard = new WebhookSignatureGuard({ secret: () => Promise.resolve('k'), clock });
    const req: { headers: Record<string, string>; rawBody: Buffer; webhook?: unknown } = {
      headers: signWebhook('k', parts),
      rawBody: Buffer.from(parts.body),
    };
    await expect(guard.canActivate(contextOf(req))).resolves.toBe(true);
    expect(req.webhook).toEqual({ eventId: 'evt_01HZ', topic: 'orders.paid', timestampSeconds: T });

    await clock.advance(600_000);
    await expect(guard.canActivate(contextOf(req))).rejects.toBeInstanceOf(UnauthorizedException);
  });

  it('refuses loudly when the app did not keep the raw body', async () => {
    const guard = new WebhookSignatureGuard({ secret: 'k' });
    await expect(
      guard.canActivate(
        contextOf({
          headers: { ...signWebhook('k', parts), 'content-type': 'application/json' },
          body: { a: 1 },
        }),
      ),
    ).rejects.toMatchObject({ code: 'X_INVARIANT' });
  });
});

describe('retryAfterSeconds', () => {
  const now = Date.UTC(2026, 0, 1, 12);
  it('reads delta-seconds, and an HTTP-date against the response’s own Date', () => {
    expect(retryAfterSeconds('3', undefined, now)).toBe(3);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 12:00:10 GMT', undefined, now)).toBe(10);
    // the receiver's clock is 1 h ahead of ours: its own Date cancels the skew
    expect(
      retryAfterSeconds('Thu, 01 Jan 2026 13:00:05 GMT', 'Thu, 01 Jan 2026 13:00:00 GMT', now),
    ).toBe(5);
  });
  it('states no wait for 0, a past date, or garbage', () => {
    expect(retryAfterSeconds('0', undefined, now)).toBeUndefined();
    expect(retryAfterSeconds('Thu, 01 Jan 2026 11:00:00 GMT', undefined, now)).toBeUndefined();
    expect(retryAfterSeconds('soon', undefined, now)).toBeUndefined();
    expect(retryAfterSeconds('-5', undefined, now)).toBeUndefined();
    expect(retryAfterSeconds(undefined, undefined, now)).toBeUndefined();
  });
});
