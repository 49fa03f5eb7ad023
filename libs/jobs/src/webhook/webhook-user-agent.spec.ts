import { memoryWebhookLedger } from './memory-webhook-ledger';
import { webhook, type WebhookDefinition } from './webhook';

/**
 * The User-Agent is the declaration's, sent on every attempt: one node refuses to put in a header must be refused
 * where it is declared. Otherwise every attempt of every endpoint fails before a byte is sent, is recorded `failed`
 * against the endpoint, and disables endpoints that did nothing wrong once `disableAfter` is reached.
 */
describe('webhook() userAgent', () => {
  let n = 0;
  const declare = (userAgent: unknown) =>
    webhook({
      name: `webhook.user-agent.${++n}`,
      tenant: 'none',
      endpoint: () => ({ url: 'https://hooks.example.test/hook', secret: 's' }),
      event: () => ({ topic: 'orders.paid', body: '{}' }),
      ledger: memoryWebhookLedger(),
      disableAfter: 3,
      userAgent: userAgent as WebhookDefinition['userAgent'],
    });

  it('refuses a value a header cannot carry at declaration', () => {
    for (const bad of ['app/1\r\n', 'app/1\nx-forged: 1', '', 'app/1 \u20ac', 42]) {
      expect(() => declare(bad)).toThrow(
        expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
      );
    }
  });

  it('takes a header-safe value', () => {
    expect(() => declare('acme-hooks/2.1 (+https://acme.test)')).not.toThrow();
  });
});
