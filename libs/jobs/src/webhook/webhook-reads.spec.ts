import { frozenClock } from '../testing/frozen-clock';
import { until } from '../../test/webhook-receiver';
import { webhookSpec } from '../../test/webhook-spec';
import { memoryWebhookLedger } from './memory-webhook-ledger';
import { webhook } from './webhook';
import type { WebhookEndpoint, WebhookEvent } from './webhook-reads';

describe('webhook() reads: an endpoint or event the app cannot answer dies before any socket', () => {
  const spec = webhookSpec();
  const { turn } = spec;
  const clock = frozenClock(Date.UTC(2026, 5, 1));

  /** One delivery whose reads answer `endpoint` and `event`; resolves once it dead-letters, with its row and ledger. */
  async function deliverWith(
    name: string,
    endpoint: WebhookEndpoint | null,
    event: WebhookEvent | null | { topic: number; body: string },
  ) {
    const ledger = memoryWebhookLedger();
    const handle = webhook({
      name,
      tenant: 'none',
      endpoint: () => endpoint,
      event: () => event as WebhookEvent | null,
      ledger,
      disableAfter: 10,
      destinations: { allowPrivate: true },
      retry: { attempts: 5 },
      clock,
    });
    await spec.runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({ endpointId: 'ep-r', eventId: 'evt_r' });
    await until(
      `${name} to dead-letter`,
      async () => (await spec.h.driver.get(id))?.state === 'dead',
      turn,
    );
    return { row: await spec.h.driver.get(id), attempts: await ledger.attempts('ep-r') };
  }

  const live = (): WebhookEndpoint => ({ url: spec.receiver.url(), secret: 'whsec_reads' });
  const paid: WebhookEvent = { topic: 'orders.paid', body: '{}' };

  it('an endpoint read that answers null is X_WEBHOOK_ENDPOINT_UNKNOWN, terminal on attempt 1', async () => {
    const { row, attempts } = await deliverWith('webhook.reads.no-endpoint', null, paid);
    expect(row).toMatchObject({ attempt: 1 });
    expect(row?.lastError).toContain('X_WEBHOOK_ENDPOINT_UNKNOWN');
    expect(attempts).toEqual([]);
    expect(spec.receiver.requests).toHaveLength(0);
  });

  it('an event read that answers null is X_WEBHOOK_EVENT_UNKNOWN, terminal on attempt 1', async () => {
    const { row, attempts } = await deliverWith('webhook.reads.no-event', live(), null);
    expect(row).toMatchObject({ attempt: 1 });
    expect(row?.lastError).toContain('X_WEBHOOK_EVENT_UNKNOWN');
    expect(attempts).toEqual([]);
    expect(spec.receiver.requests).toHaveLength(0);
  });

  it.each([
    ['a topic holding ":"', 'colon', { topic: 'orders:paid', body: '{}' }],
    ['a topic that is not a string', 'number', { topic: 7, body: '{}' }],
  ])(
    'an event with %s is X_WEBHOOK_EVENT_INVALID, terminal on attempt 1',
    async (_, tag, event) => {
      const { row, attempts } = await deliverWith(`webhook.reads.bad-event.${tag}`, live(), event);
      expect(row).toMatchObject({ attempt: 1 });
      expect(row?.lastError).toContain('X_WEBHOOK_EVENT_INVALID');
      expect(attempts).toEqual([]);
      expect(spec.receiver.requests).toHaveLength(0);
    },
  );
});
