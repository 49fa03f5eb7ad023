import { UnauthorizedException, type ExecutionContext } from '@nestjs/common';
import { frozenClock } from '../testing/frozen-clock';
import { retryAfterSeconds } from './retry-after';
import { WebhookSignatureGuard } from './webhook-guard';
import {
  signWebhook,
  verifyWebhookSignature,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TOPIC_HEADER,
  type WebhookRequestLike,
} from './webhook-signature';

const T = 1_700_000_000;
const parts = { eventId: 'evt_01HZ', topic: 'orders.paid', body: '{"a":1}', timestampSeconds: T };
const request = (
  headers: WebhookRequestLike['headers'],
  body = parts.body,
): WebhookRequestLike => ({
  headers,
  body,
});

describe('signWebhook / verifyWebhookSignature: the edges', () => {
  it('accepts a timestamp exactly the tolerance away, either way, and refuses one a second further', () => {
    const signed = signWebhook('k', parts);
    const at = (ms: number) => verifyWebhookSignature(request(signed), { secret: 'k', nowMs: ms });
    expect(at(T * 1000 + 300_000)).toMatchObject({ ok: true });
    expect(at(T * 1000 - 300_000)).toMatchObject({ ok: true });
    const tight = (ms: number) =>
      verifyWebhookSignature(request(signed), { secret: 'k', nowMs: ms, toleranceSeconds: 10 });
    expect(tight(T * 1000 + 10_000)).toMatchObject({ ok: true });
    expect(tight(T * 1000 + 11_000)).toEqual({ ok: false, reason: 'stale' });
  });

  it('refuses a header given twice as missing: two signatures (or ids) are not one', () => {
    const signed = signWebhook('k', parts);
    const sig = signed[WEBHOOK_SIGNATURE_HEADER]!;
    const twice = { ...signed, [WEBHOOK_SIGNATURE_HEADER]: [sig, 't=1,v1=' + '0'.repeat(64)] };
    expect(verifyWebhookSignature(request(twice), { secret: 'k', nowMs: T * 1000 })).toEqual({
      ok: false,
      reason: 'missing',
    });
    const ids = { ...signed, [WEBHOOK_ID_HEADER]: ['evt_01HZ', 'evt_other'] };
    expect(verifyWebhookSignature(request(ids), { secret: 'k', nowMs: T * 1000 })).toEqual({
      ok: false,
      reason: 'missing',
    });
    // one value in an array is that value
    const single = { ...signed, [WEBHOOK_SIGNATURE_HEADER]: [sig] };
    expect(verifyWebhookSignature(request(single), { secret: 'k', nowMs: T * 1000 })).toMatchObject(
      { ok: true },
    );
  });

  it('refuses to sign a timestamp that is not whole, non-negative unix seconds', () => {
    for (const timestampSeconds of [T + 0.5, -1, Number.NaN, Number.MAX_SAFE_INTEGER + 2]) {
      expect(() => signWebhook('k', { ...parts, timestampSeconds })).toThrow(
        expect.objectContaining({
          code: 'X_INVARIANT',
          message: expect.stringMatching(
            /^signWebhook: timestampSeconds must be whole unix seconds/,
          ),
        }),
      );
    }
  });

  it('refuses as malformed a topic that swallowed the head of the body: the mac alone cannot tell the split', () => {
    // v1:<t>:evt_01HZ:orders.paid:{"a":1} is also v1:<t>:evt_01HZ:orders.paid:{"a":1} split after {"a"
    const signed = signWebhook('k', parts);
    const moved = { ...signed, [WEBHOOK_TOPIC_HEADER]: 'orders.paid:{"a"' };
    expect(verifyWebhookSignature(request(moved, '1}'), { secret: 'k', nowMs: T * 1000 })).toEqual({
      ok: false,
      reason: 'malformed',
    });
    const id = {
      ...signed,
      [WEBHOOK_ID_HEADER]: 'evt_01HZ:orders.paid',
      [WEBHOOK_TOPIC_HEADER]: '{"a"',
    };
    expect(verifyWebhookSignature(request(id, '1}'), { secret: 'k', nowMs: T * 1000 })).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });
});

describe('WebhookSignatureGuard: its tolerance', () => {
  const contextOf = (req: object): ExecutionContext =>
    ({ switchToHttp: () => ({ getRequest: () => req }) }) as unknown as ExecutionContext;

  it('refuses a delivery older than the tolerance it was given, though within the default', async () => {
    const clock = frozenClock(T * 1000);
    const guard = new WebhookSignatureGuard({ secret: 'k', clock, toleranceSeconds: 10 });
    const req = { headers: signWebhook('k', parts), rawBody: Buffer.from(parts.body) };
    await clock.advance(10_000);
    await expect(guard.canActivate(contextOf(req))).resolves.toBe(true);
    await clock.advance(50_000);
    await expect(guard.canActivate(contextOf(req))).rejects.toBeInstanceOf(UnauthorizedException);
  });
});

describe('retryAfterSeconds: never less than the receiver named', () => {
  it('rounds an HTTP-date wait up to the next whole second', () => {
    const now = Date.UTC(2026, 0, 1, 12) + 500; // half a second past
    expect(retryAfterSeconds('Thu, 01 Jan 2026 12:00:10 GMT', undefined, now)).toBe(10);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 12:00:01 GMT', undefined, now)).toBe(1);
  });
});
