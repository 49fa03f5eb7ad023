import { signWebhook, verifyWebhookSignature, type WebhookRequestLike } from './webhook-signature';

const T = 1_700_000_000;
const parts = { eventId: 'evt_01HZ', topic: 'orders.paid', body: '{"a":1}', timestampSeconds: T };
const request = (headers: Record<string, string>): WebhookRequestLike => ({
  headers,
  body: parts.body,
});

/** A verifier given a bad option refuses: it never lets a delivery through that a sound one would refuse. */
describe('verifyWebhookSignature fails closed', () => {
  it('a tolerance or a clock that is not a number refuses as stale, not as fresh', () => {
    const signed = request(signWebhook('k', parts));
    const monthLater = T * 1000 + 30 * 86_400_000;
    // `Number(process.env.HOOK_TOLERANCE)` with the variable unset: NaN must not turn the freshness window off
    expect(
      verifyWebhookSignature(signed, { secret: 'k', nowMs: monthLater, toleranceSeconds: NaN }),
    ).toEqual({ ok: false, reason: 'stale' });
    expect(verifyWebhookSignature(signed, { secret: 'k', nowMs: NaN })).toEqual({
      ok: false,
      reason: 'stale',
    });
  });

  it('an empty secret verifies nothing: a signature anyone can compute is refused', () => {
    // a receiver looking the secret up per sender (`secrets[id] ?? ''`) must not accept a mac under the empty key
    const forged = request(signWebhook('', parts));
    expect(verifyWebhookSignature(forged, { secret: '', nowMs: T * 1000 })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(verifyWebhookSignature(forged, { secret: ['', 'real'], nowMs: T * 1000 })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    // the rotation still works around an empty entry
    const real = request(signWebhook('real', parts));
    expect(verifyWebhookSignature(real, { secret: ['', 'real'], nowMs: T * 1000 })).toMatchObject({
      ok: true,
    });
  });
});
