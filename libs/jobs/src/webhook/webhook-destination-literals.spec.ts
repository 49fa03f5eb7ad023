import type { LookupAddress } from 'node:dns';
import { frozenClock } from '../testing/frozen-clock';
import { until } from '../../test/webhook-receiver';
import { webhookSpec } from '../../test/webhook-spec';
import { memoryWebhookLedger } from './memory-webhook-ledger';
import { webhook } from './webhook';
import { DestinationRefused, guardedLookup } from './webhook-destination';

describe('webhook destinations: a bracketed IPv6 literal, and the family a socket asks for', () => {
  const spec = webhookSpec();
  const { turn } = spec;
  const clock = frozenClock();

  it('refuses http://[::1]/ by default before any socket: a literal skips the lookup, so it is checked itself', async () => {
    const ledger = memoryWebhookLedger();
    const handle = webhook({
      name: 'webhook.literal.v6-loopback',
      tenant: 'none',
      // nothing listens on ::1 at this port: a socket opened would end as a failed connect, not a refusal
      endpoint: () => ({ url: `http://[::1]:${spec.receiver.port}/hook`, secret: 's' }),
      event: () => ({ topic: 'orders.paid', body: '{}' }),
      ledger,
      disableAfter: 5,
      retry: { attempts: 1 },
      clock,
    });
    await spec.runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({ endpointId: 'ep', eventId: 'evt' });
    await until(
      'the delivery to dead-letter',
      async () => (await spec.h.driver.get(id))?.state === 'dead',
      turn,
    );
    const row = await spec.h.driver.get(id);
    expect(row?.lastError).toContain('X_WEBHOOK_ENDPOINT_INVALID');
    expect(row?.lastError).toContain('address ::1');
    expect(await ledger.attempts('ep')).toEqual([
      expect.objectContaining({ outcome: 'refused', status: null }),
    ]);
  });

  /** What the guarded lookup hands a socket asking for `family`: the addresses, or the error it refuses with. */
  function lookUp(family: number, answers: readonly LookupAddress[]) {
    const resolve = (): Promise<readonly LookupAddress[]> => Promise.resolve(answers);
    return new Promise<{ error: Error | null; addresses: unknown }>((done) => {
      guardedLookup({ resolve })('dual.test', { all: true, family }, (error, addresses) =>
        done({ error, addresses }),
      );
    });
  }

  it('hands a socket asking for one family only the addresses of that family, and refuses when there are none', async () => {
    const v4 = { address: '93.184.215.14', family: 4 };
    const v6 = { address: '2606:4700:4700::1111', family: 6 };
    expect(await lookUp(4, [v6, v4])).toEqual({ error: null, addresses: [v4] });
    expect(await lookUp(6, [v6, v4])).toEqual({ error: null, addresses: [v6] });
    expect(await lookUp(0, [v6, v4])).toEqual({ error: null, addresses: [v6, v4] });
    const none = await lookUp(6, [v4]);
    expect(none.error).toBeInstanceOf(DestinationRefused);
    expect(none.error?.message).toContain('has no IPv6 address');
  });
});
