import { frozenClock } from '../testing/frozen-clock';
import type { JobRow } from '../driver/job-row';
import { memoryWebhookLedger } from './memory-webhook-ledger';
import { until, type Answer } from '../../test/webhook-receiver';
import { webhookSpec } from '../../test/webhook-spec';
import { webhook } from './webhook';
import type { WebhookLedger } from './webhook-ledger';
import type { WebhookEndpoint } from './webhook-reads';
import { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER } from './webhook-signature';

const SECRET = 'whsec_spec';
const BODY = JSON.stringify({ order: 'o-1', total: 12.5 });

describe('webhook()', () => {
  const spec = webhookSpec();
  const { turn } = spec;
  const clock = frozenClock(Date.UTC(2026, 5, 1));
  const row = async (id: string): Promise<JobRow | undefined> => spec.h.driver.get(id);
  const stateOf = (id: string, state: string) => async () => (await row(id))?.state === state;

  function declare(
    name: string,
    ledger: WebhookLedger,
    extra: Partial<Parameters<typeof webhook>[0]> = {},
    endpoint: Partial<WebhookEndpoint> = {},
  ) {
    const reads = { endpoint: 0 };
    const handle = webhook({
      name,
      tenant: ({ orgId }) => orgId,
      endpoint: ({ endpointId }) => {
        reads.endpoint++;
        return { url: spec.receiver.url(), secret: `${SECRET}:${endpointId}`, ...endpoint };
      },
      event: ({ eventId }) => ({
        topic: 'orders.paid',
        body: `${BODY.slice(0, -1)},"id":"${eventId}"}`,
      }),
      ledger,
      disableAfter: 10,
      destinations: { allowPrivate: true },
      clock,
      ...extra,
    });
    return { handle, reads };
  }

  it('posts one signed delivery that verifies, and a replayed or re-dated copy is refused', async () => {
    const ledger = memoryWebhookLedger();
    const { handle } = declare('webhook.spec.signed', ledger);
    await spec.runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({ endpointId: 'ep-1', eventId: 'evt_1', orgId: 'org-a' });
    await until('the delivery to complete', stateOf(id, 'done'), turn);

    expect(spec.receiver.requests).toHaveLength(1);
    const [got] = spec.receiver.requests;
    expect(got!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-ultimate-webhook-id': 'evt_1',
      'x-ultimate-webhook-topic': 'orders.paid',
    });
    const request = { headers: got!.headers, body: got!.body };
    const secret = `${SECRET}:ep-1`;
    const verdict = verifyWebhookSignature(request, { secret, nowMs: clock.now() });
    expect(verdict).toEqual({
      ok: true,
      eventId: 'evt_1',
      topic: 'orders.paid',
      timestampSeconds: Math.floor(clock.now() / 1000),
    });
    // replayed six minutes later: outside the freshness window
    expect(verifyWebhookSignature(request, { secret, nowMs: clock.now() + 360_000 })).toEqual({
      ok: false,
      reason: 'stale',
    });
    // re-dated into the window: the timestamp is inside the mac
    const redated = String(got!.headers[WEBHOOK_SIGNATURE_HEADER]).replace(
      /^t=\d+/,
      `t=${Math.floor(clock.now() / 1000) + 360}`,
    );
    const later = {
      headers: { ...got!.headers, [WEBHOOK_SIGNATURE_HEADER]: redated },
      body: got!.body,
    };
    expect(verifyWebhookSignature(later, { secret, nowMs: clock.now() + 360_000 })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(verifyWebhookSignature(request, { secret: 'another', nowMs: clock.now() })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    // the endpoint (and its secret) is read per attempt, never checkpointed: the run stored no step
    expect(await spec.h.driver.steps.load(id)).toEqual([]);
    const attempts = await ledger.attempts('ep-1');
    expect(attempts).toEqual([
      expect.objectContaining({
        eventId: 'evt_1',
        outcome: 'delivered',
        status: 200,
        orgId: 'org-a',
        attempt: 1,
      }),
    ]);
  });

  it("merges the endpoint's headers under the framework's: a row cannot set the signature", async () => {
    const { handle } = declare(
      'webhook.spec.headers',
      memoryWebhookLedger(),
      {},
      { headers: { 'X-Partner': 'p-9', 'Content-Type': 'text/plain' } },
    );
    const forging = declare(
      'webhook.spec.forging',
      memoryWebhookLedger(),
      {},
      { headers: { [WEBHOOK_SIGNATURE_HEADER]: 't=1,v1=00' } },
    ).handle;
    await spec.runJobs({ jobs: [handle, forging], clock });
    const { id } = await handle.enqueue({ endpointId: 'ep-h', eventId: 'evt_h', orgId: 'org-a' });
    await until('the delivery', stateOf(id, 'done'), turn);
    expect(spec.receiver.requests[0]!.headers).toMatchObject({
      'x-partner': 'p-9',
      'content-type': 'application/json',
    });

    const bad = await forging.enqueue({ endpointId: 'ep-f', eventId: 'evt_f', orgId: 'org-a' });
    await until('the forging row to dead-letter', stateOf(bad.id, 'dead'), turn);
    expect((await row(bad.id))?.lastError).toContain('X_WEBHOOK_ENDPOINT_INVALID');
    expect(spec.receiver.requests).toHaveLength(1);
  });

  it('a 429 with Retry-After: 3 schedules the retry 3 s out (plus at most 10 % spread), not on the backoff', async () => {
    const ledger = memoryWebhookLedger();
    const { handle } = declare('webhook.spec.throttled', ledger, {
      retry: { attempts: 5, delay: 60_000 },
    });
    spec.receiver.answer((_, n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '3' } } : { status: 204 },
    );
    await spec.runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({ endpointId: 'ep-t', eventId: 'evt_t', orgId: 'org-a' });
    await until('the throttled attempt to be nacked', stateOf(id, 'delayed'), turn);
    const failedAt = clock.now();
    const delayed = await row(id);
    expect(delayed?.lastError).toContain('X_WEBHOOK_DELIVERY_THROTTLED');
    expect(delayed!.runAt - failedAt).toBeGreaterThanOrEqual(3_000);
    expect(delayed!.runAt - failedAt).toBeLessThanOrEqual(3_300);

    await spec.h.advance(delayed!.runAt - failedAt - 1);
    await turn();
    expect(spec.receiver.requests).toHaveLength(1);
    await spec.h.advance(1);
    await until('the retry to be delivered', stateOf(id, 'done'), turn);
    expect(spec.receiver.requests).toHaveLength(2);
    expect((await ledger.attempts('ep-t')).map((a) => [a.outcome, a.status])).toEqual([
      ['delivered', 204],
      ['throttled', 429],
    ]);
  });

  it('a Retry-After past retry.maxDelay is clamped to it; an HTTP date is read against the answer’s Date', async () => {
    const { handle } = declare('webhook.spec.clamped', memoryWebhookLedger(), {
      retry: { attempts: 3, delay: 1_000, maxDelay: 10_000, jitter: false },
    });
    const date = new Date(Date.UTC(2030, 0, 1)).toUTCString(); // the receiver's clock, years off ours
    const retryAt = new Date(Date.UTC(2030, 0, 1, 0, 0, 7)).toUTCString();
    spec.receiver.answer((_, n): Answer =>
      n === 1
        ? { status: 429, headers: { 'retry-after': '7200' } }
        : { status: 503, headers: { 'retry-after': retryAt, date } },
    );
    await spec.runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({ endpointId: 'ep-c', eventId: 'evt_c', orgId: 'org-a' });
    await until('the first nack', stateOf(id, 'delayed'), turn);
    expect((await row(id))!.runAt - clock.now()).toBe(10_000);
    await spec.h.advance(10_000);
    await until('the second attempt', () => spec.receiver.requests.length === 2, turn);
    await until(
      'the second nack',
      async () => (await row(id))?.attempt === 2 && (await row(id))?.state === 'delayed',
      turn,
    );
    expect((await row(id))!.runAt - clock.now()).toBe(7_000);
  });

  it('ten 500s in a row disable the endpoint: no further socket opens until the app re-enables it', async () => {
    const ledger = memoryWebhookLedger();
    const { handle } = declare('webhook.spec.disable', ledger, {
      retry: { attempts: 20, backoff: 'fixed', delay: 1_000, jitter: false },
    });
    spec.receiver.answer(() => ({ status: 500 }));
    await spec.runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({ endpointId: 'ep-d', eventId: 'evt_d1', orgId: 'org-a' });
    for (let n = 1; n <= 10; n++) {
      await until(`attempt ${n}`, () => spec.receiver.requests.length === n, turn);
      if (n < 10) {
        await until(`attempt ${n} nacked`, stateOf(id, 'delayed'), turn);
        await spec.h.advance(1_000);
      }
    }
    await until('the tenth failure to dead-letter', stateOf(id, 'dead'), turn);
    expect((await row(id))?.lastError).toContain('X_WEBHOOK_ENDPOINT_DISABLED');
    expect(await ledger.isDisabled('ep-d')).toBe(true);
    expect(ledger.disabled().get('ep-d')).toMatchObject({
      failures: 10,
      code: 'X_WEBHOOK_DELIVERY_FAILED',
    });

    const next = await handle.enqueue({ endpointId: 'ep-d', eventId: 'evt_d2', orgId: 'org-a' });
    await until('the next delivery to dead-letter', stateOf(next.id, 'dead'), turn);
    await spec.h.advance(60_000);
    expect((await row(next.id))?.lastError).toContain('X_WEBHOOK_ENDPOINT_DISABLED');
    expect(spec.receiver.connections()).toBe(10);
    expect(await ledger.attempts('ep-d', 100)).toHaveLength(10);

    await ledger.enable('ep-d');
    spec.receiver.answer(() => ({ status: 200 }));
    const again = await handle.enqueue({ endpointId: 'ep-d', eventId: 'evt_d3', orgId: 'org-a' });
    await until('the re-enabled endpoint to take a delivery', stateOf(again.id, 'done'), turn);
    expect(spec.receiver.connections()).toBe(11);
  });

  it('a 302 is not followed: one request, REJECTED, recorded', async () => {
    const ledger = memoryWebhookLedger();
    const { handle } = declare('webhook.spec.redirect', ledger, { retry: { attempts: 1 } });
    spec.receiver.answer(() => ({
      status: 302,
      headers: { location: spec.receiver.url('/elsewhere') },
    }));
    await spec.runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({ endpointId: 'ep-r', eventId: 'evt_r', orgId: 'org-a' });
    await until('the redirect to dead-letter', stateOf(id, 'dead'), turn);
    expect(spec.receiver.requests.map((r) => r.path)).toEqual(['/hook']);
    expect((await row(id))?.lastError).toContain('X_WEBHOOK_DELIVERY_REJECTED');
    expect((await ledger.attempts('ep-r'))[0]).toMatchObject({
      outcome: 'rejected',
      status: 302,
      code: 'X_WEBHOOK_DELIVERY_REJECTED',
    });
  });

  it("an orgId that is not the run's org is X_JOB_TENANT_MISMATCH before either read: terminal on attempt 1", async () => {
    const ledger = memoryWebhookLedger();
    const { handle, reads } = declare('webhook.spec.tenant', ledger, { tenant: 'none' });
    await spec.runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({ endpointId: 'ep-x', eventId: 'evt_x', orgId: 'org-b' });
    await until('the mismatch to dead-letter', stateOf(id, 'dead'), turn);
    const dead = await row(id);
    expect(dead?.lastError).toContain('X_JOB_TENANT_MISMATCH');
    expect(dead?.attempt).toBe(1);
    expect(reads.endpoint).toBe(0);
    expect(spec.receiver.connections()).toBe(0);
    expect(await ledger.attempts('ep-x')).toEqual([]);
  });

  it('an input naming no org is refused at enqueue under tenant: ({ orgId }) => orgId', async () => {
    const { handle } = declare('webhook.spec.no-org', memoryWebhookLedger());
    await spec.runJobs({ jobs: [handle], clock });
    await expect(handle.enqueue({ endpointId: 'ep', eventId: 'evt' })).rejects.toMatchObject({
      code: 'X_JOB_TENANT_REQUIRED',
    });
    await expect(
      handle.enqueue({ endpointId: 'ep', eventId: 'evt:2', orgId: 'org-a' }),
    ).rejects.toMatchObject({ code: 'X_JOB_INPUT_INVALID' });
    await expect(
      handle.enqueue({ endpointId: 'ep', eventId: 'évt\n', orgId: 'org-a' }),
    ).rejects.toMatchObject({ code: 'X_JOB_INPUT_INVALID' });
  });

  it('refuses a bad declaration where it is declared', () => {
    const ledger = memoryWebhookLedger();
    expect(() => declare('webhook.spec.bad', ledger, { disableAfter: 0 })).toThrow(
      expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
    );
    expect(() => declare('webhook.spec.bad-ledger', {} as unknown as WebhookLedger)).toThrow(
      expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
    );
    for (const destinations of [
      'private',
      { allowPrivate: 'yes' },
      { resolve: 'dns' },
    ] as unknown as object[])
      expect(() => declare('webhook.spec.bad-destinations', ledger, { destinations })).toThrow(
        expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }),
      );
    // a JS caller's missing or misspelt tenant is refused here, as job() refuses it — not a TypeError at every enqueue
    for (const tenant of [undefined, 'None'] as unknown as 'none'[])
      expect(() =>
        declare(`webhook.spec.bad-tenant-${String(tenant)}`, ledger, { tenant }),
      ).toThrow(expect.objectContaining({ code: 'X_JOB_TENANT_REQUIRED' }));
  });
});
