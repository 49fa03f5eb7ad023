import { frozenClock } from '../testing/frozen-clock';
import { until } from '../../test/webhook-receiver';
import { webhookSpec } from '../../test/webhook-spec';
import { memoryWebhookLedger } from './memory-webhook-ledger';
import { webhook } from './webhook';
import { signWebhook, verifyWebhookSignature } from './webhook-signature';

const T = 1_780_000_000;

/**
 * A receiver's HTTP parser strips a header value's edge spaces: an id or topic signed with one would reach it as
 * another label, the mac would never verify, and every retry would be refused and counted against the endpoint.
 */
describe('webhook labels: no space at either end of the event id or topic', () => {
  const spec = webhookSpec();
  const clock = frozenClock(T * 1000);

  it('signWebhook refuses an id or a topic beginning or ending with a space; the verifier calls it malformed', () => {
    for (const [eventId, topic] of [
      ['evt_1 ', 'orders.paid'],
      [' evt_1', 'orders.paid'],
      ['evt_1', 'orders.paid '],
      ['evt_1', ' orders.paid'],
    ]) {
      expect(() =>
        signWebhook('k', { eventId: eventId!, topic: topic!, body: '{}', timestampSeconds: T }),
      ).toThrow(expect.objectContaining({ code: 'X_INVARIANT' }));
    }
    const signed = signWebhook('k', {
      eventId: 'evt 1',
      topic: 'a b',
      body: '{}',
      timestampSeconds: T,
    });
    const spaced = { ...signed, 'x-ultimate-webhook-id': 'evt 1 ' };
    expect(
      verifyWebhookSignature({ headers: spaced, body: '{}' }, { secret: 'k', nowMs: T * 1000 }),
    ).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });

  function declare(name: string, topic: string) {
    const ledger = memoryWebhookLedger();
    const handle = webhook({
      name,
      tenant: 'none',
      endpoint: () => ({ url: spec.receiver.url(), secret: 'whsec_spaces' }),
      event: () => ({ topic, body: '{}' }),
      ledger,
      disableAfter: 10,
      destinations: { allowPrivate: true },
      clock,
    });
    return { handle, ledger };
  }

  it('an event id with an edge space is refused at enqueue (X_JOB_INPUT_INVALID); one inside is delivered and verifies', async () => {
    const { handle } = declare('webhook.spaces.id', 'orders.paid');
    await spec.runJobs({ jobs: [handle], clock });
    await expect(handle.enqueue({ endpointId: 'ep-1', eventId: 'evt_1 ' })).rejects.toMatchObject({
      code: 'X_JOB_INPUT_INVALID',
    });
    await expect(handle.enqueue({ endpointId: 'ep-1', eventId: ' evt_1' })).rejects.toMatchObject({
      code: 'X_JOB_INPUT_INVALID',
    });
    const { id } = await handle.enqueue({ endpointId: 'ep-1', eventId: 'evt 1' });
    await until(
      'the delivery',
      async () => (await spec.h.driver.get(id))?.state === 'done',
      spec.turn,
    );
    const [got] = spec.receiver.requests;
    expect(
      verifyWebhookSignature(
        { headers: got!.headers, body: got!.body },
        { secret: 'whsec_spaces', nowMs: T * 1000 },
      ),
    ).toMatchObject({ ok: true, eventId: 'evt 1' });
  });

  it('a topic with an edge space is X_WEBHOOK_EVENT_INVALID before any socket, and not counted against the endpoint', async () => {
    const { handle, ledger } = declare('webhook.spaces.topic', 'orders.paid ');
    await spec.runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({ endpointId: 'ep-2', eventId: 'evt_2' });
    await until(
      'the delivery to settle',
      async () => (await spec.h.driver.get(id))?.state === 'dead',
      spec.turn,
    );
    const row = await spec.h.driver.get(id);
    expect(row).toMatchObject({ state: 'dead', attempt: 1 });
    expect(row?.lastError).toContain('X_WEBHOOK_EVENT_INVALID');
    expect(spec.receiver.connections()).toBe(0);
    expect(await ledger.attempts('ep-2')).toEqual([]);
  });
});
