import type { WebhookAttempt } from './webhook-ledger';
import { memoryWebhookLedger } from './memory-webhook-ledger';

const attempt = (over: Partial<WebhookAttempt> = {}): WebhookAttempt => ({
  endpointId: 'ep',
  eventId: 'evt-1',
  topic: 'orders.paid',
  orgId: null,
  jobId: 'job-1',
  runId: 'run-1',
  attempt: 1,
  outcome: 'failed',
  status: 500,
  code: 'X_WEBHOOK_DELIVERY_FAILED',
  error: 'the receiver answered 500',
  attemptedAtMs: 1_750_000_000_000,
  durationMs: 3,
  ...over,
});

describe('memoryWebhookLedger', () => {
  it('answers copies: a caller editing what it read does not edit the ledger', async () => {
    const ledger = memoryWebhookLedger();
    await ledger.record(attempt());
    const [read] = await ledger.attempts('ep');
    (read as { outcome: string; error: string | null }).outcome = 'delivered';
    (read as { outcome: string; error: string | null }).error = null;
    expect(await ledger.attempts('ep')).toEqual([attempt()]);

    await ledger.disable('ep', { failures: 5, atMs: 1, code: 'X_WEBHOOK_DELIVERY_FAILED' });
    const verdict = ledger.disabled().get('ep') as { failures: number };
    verdict.failures = 0;
    expect(ledger.disabled().get('ep')).toEqual({
      failures: 5,
      atMs: 1,
      code: 'X_WEBHOOK_DELIVERY_FAILED',
    });
  });

  it('refuses a limit that is not a whole number from 1 to 1,000 with a rejected X_INVARIANT, as PostgreSQL does', async () => {
    const ledger = memoryWebhookLedger({ capacity: 2_000 });
    for (let i = 0; i < 3; i++) await ledger.record(attempt({ eventId: `evt-${i}` }));
    for (const limit of [Number.NaN, 2.5, 0, -1, Infinity, 1_001]) {
      let answered: Promise<readonly WebhookAttempt[]> | undefined;
      expect(() => (answered = ledger.attempts('ep', limit))).not.toThrow();
      await expect(answered).rejects.toMatchObject({ code: 'X_INVARIANT' });
    }
    expect(await ledger.attempts('ep', 2)).toHaveLength(2);
    expect(await ledger.attempts('ep', 1_000)).toHaveLength(3);
    expect(await ledger.attempts('ep')).toHaveLength(3);
  });

  it('counts every outcome but a delivery as a failure in a row, per endpoint; a delivery resets it', async () => {
    const ledger = memoryWebhookLedger();
    const counts: number[] = [];
    for (const outcome of ['failed', 'rejected', 'throttled', 'refused'] as const)
      counts.push(await ledger.record(attempt({ outcome })));
    expect(counts).toEqual([1, 2, 3, 4]);
    expect(await ledger.record(attempt({ endpointId: 'other' }))).toBe(1);
    expect(await ledger.record(attempt({ outcome: 'delivered', status: 200 }))).toBe(0);
    expect(await ledger.record(attempt({ outcome: 'rejected', status: 404 }))).toBe(1);
  });

  it('keeps the first disable verdict, and enable() clears it and the count', async () => {
    const ledger = memoryWebhookLedger();
    for (let i = 0; i < 3; i++) await ledger.record(attempt());
    await ledger.disable('ep', { failures: 3, atMs: 1, code: 'X_WEBHOOK_DELIVERY_FAILED' });
    await ledger.disable('ep', { failures: 4, atMs: 2, code: 'X_WEBHOOK_DELIVERY_REJECTED' });
    expect(ledger.disabled().get('ep')).toEqual({
      failures: 3,
      atMs: 1,
      code: 'X_WEBHOOK_DELIVERY_FAILED',
    });
    await ledger.enable('ep');
    expect(await ledger.isDisabled('ep')).toBe(false);
    // the count starts over: one failure after re-enabling is one, not the fourth
    expect(await ledger.record(attempt())).toBe(1);
  });

  it('keeps exactly the newest `capacity` attempts across every endpoint', async () => {
    const ledger = memoryWebhookLedger({ capacity: 3 });
    for (let i = 0; i < 5; i++)
      await ledger.record(attempt({ endpointId: i % 2 === 0 ? 'ep' : 'ep-2', eventId: `e${i}` }));
    expect((await ledger.attempts('ep')).map((a) => a.eventId)).toEqual(['e4', 'e2']);
    expect((await ledger.attempts('ep-2')).map((a) => a.eventId)).toEqual(['e3']);
  });
});
