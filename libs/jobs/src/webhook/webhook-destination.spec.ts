import type { LookupAddress } from 'node:dns';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { memoryWebhookLedger } from './memory-webhook-ledger';
import { startReceiver, until, type Receiver } from '../../test/webhook-receiver';
import { webhook } from './webhook';
import { isNonPublicAddress, type WebhookDestinations } from './webhook-destination';

describe('webhook destinations (SSRF)', () => {
  let h: JobsHarness | undefined;
  let receiver: Receiver;
  const clock = frozenClock();
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
    await receiver.close();
  });
  const turn = async (): Promise<void> => {
    await new Promise((r) => setTimeout(r, 5));
    await h?.settle();
  };

  /** A fixed resolver: no test resolves a real name, and none connects anywhere but 127.0.0.1. */
  const table =
    (entries: Record<string, readonly string[]>) =>
    (hostname: string): Promise<readonly LookupAddress[]> =>
      Promise.resolve(
        (entries[hostname] ?? []).map((address) => ({
          address,
          family: address.includes(':') ? 6 : 4,
        })),
      );

  async function deliverTo(url: (port: number) => string, destinations: WebhookDestinations) {
    const ledger = memoryWebhookLedger();
    const handle = webhook({
      name: `webhook.ssrf.${Math.random().toString(36).slice(2)}`,
      tenant: 'none',
      endpoint: () => ({ url: url(receiver.port), secret: 's' }),
      event: () => ({ topic: 'orders.paid', body: '{}' }),
      ledger,
      disableAfter: 5,
      destinations,
      retry: { attempts: 1 },
      clock,
    });
    h = await runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({ endpointId: 'ep', eventId: 'evt' });
    await until(
      'the delivery to settle',
      async () => {
        const state = (await h!.driver.get(id))?.state;
        return state === 'done' || state === 'dead';
      },
      turn,
    );
    return { row: await h.driver.get(id), attempts: await ledger.attempts('ep') };
  }

  it('refuses a loopback address by default: no socket opens, the attempt is recorded refused', async () => {
    const { row, attempts } = await deliverTo((port) => `http://127.0.0.1:${port}/hook`, {});
    expect(row?.state).toBe('dead');
    expect(row?.lastError).toContain('X_WEBHOOK_ENDPOINT_INVALID');
    expect(row?.lastError).toContain('127.0.0.1');
    expect(receiver.connections()).toBe(0);
    expect(attempts).toEqual([expect.objectContaining({ outcome: 'refused', status: null })]);
  });

  it('refuses a name resolving to a private address at connect time, before any byte is sent', async () => {
    const resolve = table({ 'hooks.partner.test': ['10.1.2.3'] });
    const { row } = await deliverTo((port) => `http://hooks.partner.test:${port}/hook`, {
      resolve,
    });
    expect(row?.lastError).toContain('resolves to 10.1.2.3');
    expect(receiver.connections()).toBe(0);
  });

  it('refuses a name answering one public and one loopback address (a rebinding attempt)', async () => {
    const resolve = table({ 'rebind.test': ['93.184.215.14', '127.0.0.1'] });
    const { row } = await deliverTo((port) => `http://rebind.test:${port}/hook`, { resolve });
    expect(row?.lastError).toContain('X_WEBHOOK_ENDPOINT_INVALID');
    expect(receiver.connections()).toBe(0);
  });

  it('connects to the address the lookup checked, when private destinations are allowed', async () => {
    const resolve = table({ 'internal.test': ['127.0.0.1'] });
    const { row } = await deliverTo((port) => `http://internal.test:${port}/hook`, {
      resolve,
      allowPrivate: true,
    });
    expect(row?.state).toBe('done');
    expect(receiver.requests[0]?.headers.host).toBe(`internal.test:${receiver.port}`);
    expect(receiver.connections()).toBe(1);
  });

  it('allows a loopback literal when configured', async () => {
    const { row } = await deliverTo((port) => `http://127.0.0.1:${port}/hook`, {
      allowPrivate: true,
    });
    expect(row?.state).toBe('done');
  });

  it('classifies addresses', () => {
    const refused = [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::a00:1',
      'not-an-ip',
    ];
    const allowed = ['93.184.215.14', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'];
    expect(refused.filter((a) => !isNonPublicAddress(a))).toEqual([]);
    expect(allowed.filter((a) => isNonPublicAddress(a))).toEqual([]);
  });
});
