import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { JobRunContext } from '../declare/run-args';
import { frozenClock } from '../testing/frozen-clock';
import { until } from '../../test/webhook-receiver';
import { memoryWebhookLedger } from './memory-webhook-ledger';
import { deliverWebhook } from './webhook-delivery';

/**
 * A receiver answering `101 Switching Protocols` with an `Upgrade` header: node hands such an answer to an `upgrade`
 * listener, emits no `response` and no `error`, and closes the socket. The POST must still come to an end — a tenant
 * owning an endpoint could otherwise pin a worker's slot (and hold a drain to its deadline) with one reply.
 */
describe('webhook: a receiver that answers 101 with an Upgrade', () => {
  const clock = frozenClock(Date.UTC(2026, 5, 1));
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  afterEach(async () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  /** A raw TCP receiver on 127.0.0.1 that answers every request with `reply`. */
  async function rawReceiver(reply: string): Promise<number> {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('data', () => socket.write(reply));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  it('ends the attempt as failed, recorded, instead of waiting forever', async () => {
    const port = await rawReceiver(
      'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
    );
    const ledger = memoryWebhookLedger();
    const run = new AbortController();
    const ctx: JobRunContext = {
      actor: { id: null, orgId: null },
      signal: run.signal,
      hardSignal: run.signal,
      jobId: 'job-1',
      runId: 'run-1',
      name: 'webhook.upgrade-answer',
      attempt: 1,
    };
    let ended: unknown;
    const delivering = deliverWebhook(
      {
        name: 'webhook.upgrade-answer',
        endpoint: () => ({ url: `http://127.0.0.1:${port}/hook`, secret: 's' }),
        event: () => ({ topic: 'orders.paid', body: '{}' }),
        ledger,
        disableAfter: 5,
        destinations: { allowPrivate: true },
        clock,
        userAgent: 'spec',
      },
      { endpointId: 'ep-u', eventId: 'evt_u' },
      ctx,
    ).then(
      () => (ended = 'delivered'),
      (error: unknown) => (ended = error),
    );
    try {
      await until('the attempt to end', () => ended !== undefined);
    } finally {
      run.abort(new Error('spec over')); // on a hung POST, the only way out: its run stopped
      await delivering;
    }
    expect(ended).toMatchObject({ code: 'X_WEBHOOK_DELIVERY_FAILED' });
    expect(await ledger.attempts('ep-u')).toEqual([
      expect.objectContaining({ outcome: 'failed', code: 'X_WEBHOOK_DELIVERY_FAILED' }),
    ]);
  });
});
