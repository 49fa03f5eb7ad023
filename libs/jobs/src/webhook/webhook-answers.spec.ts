import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { frozenClock } from '../testing/frozen-clock';
import { until, type Answer } from '../../test/webhook-receiver';
import { webhookSpec } from '../../test/webhook-spec';
import { memoryWebhookLedger } from './memory-webhook-ledger';
import { webhook } from './webhook';
import type { WebhookEndpoint } from './webhook-reads';

describe('webhook(): what each answer and endpoint row comes to, and the dedupe key', () => {
  const spec = webhookSpec();
  const { turn } = spec;
  const clock = frozenClock(Date.UTC(2026, 5, 1));

  /** A one-attempt webhook posting to `/<endpointId>` on the receiver, with the endpoint row `extra` adds to. */
  function declare(name: string, extra: Partial<WebhookEndpoint> = {}) {
    const ledger = memoryWebhookLedger();
    const handle = webhook({
      name,
      tenant: 'none',
      endpoint: ({ endpointId }) => ({
        url: spec.receiver.url(`/${endpointId}`),
        secret: 'whsec_answers',
        ...extra,
      }),
      event: () => ({ topic: 'orders.paid', body: '{}' }),
      ledger,
      disableAfter: 10,
      destinations: { allowPrivate: true },
      retry: { attempts: 1 },
      clock,
    });
    return { handle, ledger };
  }

  const settled = (id: string) => async () =>
    ['done', 'dead'].includes((await spec.h.driver.get(id))?.state ?? '');

  it.each([
    ['a 503 naming no Retry-After is failed, not throttled', 503, 'failed', 'FAILED'],
    ['a 429 naming no Retry-After is throttled all the same', 429, 'throttled', 'THROTTLED'],
    ['a 300 is not a delivery: rejected, never followed', 300, 'rejected', 'REJECTED'],
    ['a 404 is rejected', 404, 'rejected', 'REJECTED'],
  ])('%s', async (_, status, outcome, code) => {
    const { handle, ledger } = declare(`webhook.answers.${status}`);
    spec.receiver.answer((): Answer => ({ status }));
    await spec.runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({ endpointId: 'ep-a', eventId: 'evt_a' });
    await until('the attempt to settle', settled(id), turn);
    const row = await spec.h.driver.get(id);
    expect(row?.state).toBe('dead');
    expect(row?.lastError).toContain(`X_WEBHOOK_DELIVERY_${code}`);
    expect(await ledger.attempts('ep-a')).toEqual([
      expect.objectContaining({ outcome, status, code: `X_WEBHOOK_DELIVERY_${code}` }),
    ]);
  });

  it('an endpoint the app disabled is never posted to and never recorded: X_WEBHOOK_ENDPOINT_DISABLED', async () => {
    const { handle, ledger } = declare('webhook.answers.app-disabled', { disabled: true });
    await spec.runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({ endpointId: 'ep-off', eventId: 'evt_off' });
    await until('the delivery to settle', settled(id), turn);
    const row = await spec.h.driver.get(id);
    expect(row).toMatchObject({ state: 'dead', attempt: 1 });
    expect(row?.lastError).toContain('X_WEBHOOK_ENDPOINT_DISABLED');
    expect(spec.receiver.connections()).toBe(0);
    expect(await ledger.attempts('ep-off')).toEqual([]);
  });

  it('an endpoint whose url is not http(s) is X_WEBHOOK_ENDPOINT_INVALID before any attempt', async () => {
    const { handle, ledger } = declare('webhook.answers.scheme', { url: 'file:///etc/passwd' });
    await spec.runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({ endpointId: 'ep-file', eventId: 'evt_file' });
    await until('the delivery to settle', settled(id), turn);
    const row = await spec.h.driver.get(id);
    expect(row).toMatchObject({ state: 'dead', attempt: 1 });
    expect(row?.lastError).toContain('X_WEBHOOK_ENDPOINT_INVALID');
    expect(await ledger.attempts('ep-file')).toEqual([]);
  });

  it('reads a 2xx answer only so far: a receiver streaming a body without end still ends the attempt', async () => {
    const endless = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.on('error', () => undefined);
        res.writeHead(200);
        const chunk = Buffer.alloc(16 * 1024, 'x');
        const pump = (): void => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      });
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = endless.address() as AddressInfo;
      const { handle, ledger } = declare('webhook.answers.endless', {
        url: `http://127.0.0.1:${port}/hook`,
      });
      await spec.runJobs({ jobs: [handle], clock });
      const { id } = await handle.enqueue({ endpointId: 'ep-long', eventId: 'evt_long' });
      await until('the delivery to settle', settled(id), turn);
      expect((await spec.h.driver.get(id))?.state).toBe('done');
      expect(await ledger.attempts('ep-long')).toEqual([
        expect.objectContaining({ outcome: 'delivered', status: 200 }),
      ]);
    } finally {
      endless.closeAllConnections();
      await new Promise((resolve) => endless.close(resolve));
    }
  });

  it('dedupes per (endpoint, event): one event fans out to two endpoints, and a repeat is the same job', async () => {
    const { handle } = declare('webhook.answers.dedupe');
    await spec.runJobs({ jobs: [handle], clock });
    const one = await handle.enqueue({ endpointId: 'ep-1', eventId: 'evt_fan' });
    const two = await handle.enqueue({ endpointId: 'ep-2', eventId: 'evt_fan' });
    const again = await handle.enqueue({ endpointId: 'ep-1', eventId: 'evt_fan' });
    expect(two.id).not.toBe(one.id);
    expect(two.deduped).toBe(false);
    expect(again).toMatchObject({ id: one.id, deduped: true });
    await until(
      'both deliveries',
      async () => (await settled(one.id)()) && settled(two.id)(),
      turn,
    );
    expect(spec.receiver.requests.map((r) => r.path).sort()).toEqual(['/ep-1', '/ep-2']);
  });
});
