import { memoryWebhookLedger, type WebhookAttempt, type WebhookLedger } from '@ultimat3/jobs';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresWebhookLedger } from './pg-webhook-ledger';

const attempt = (eventId: string): WebhookAttempt => ({
  endpointId: 'ep-limit',
  eventId,
  topic: 'orders.paid',
  orgId: null,
  jobId: 'job-1',
  runId: 'run-1',
  attempt: 1,
  outcome: 'failed',
  status: 500,
  code: 'X_WEBHOOK_DELIVERY_FAILED',
  error: 'the receiver answered 500',
  attemptedAtMs: Date.UTC(2026, 0, 1),
  durationMs: 3,
});

/** What `attempts('ep-limit', limit)` comes to: the event ids read, or the code it was refused with. */
async function answer(ledger: WebhookLedger, limit: number | undefined): Promise<unknown> {
  try {
    return (await ledger.attempts('ep-limit', limit)).map((a) => a.eventId);
  } catch (error) {
    return { refused: (error as { code?: unknown }).code ?? String(error) };
  }
}

describe('webhook ledger attempts(limit): PostgreSQL and memory agree', () => {
  const db = pgJobsSpec();

  it('refuses a NaN, fractional, infinite or out-of-range limit with X_INVARIANT on both, before any query', async () => {
    const pg = postgresWebhookLedger({ executor: db.executor });
    const memory = memoryWebhookLedger({ capacity: 2_000 });
    for (const ledger of [pg, memory])
      for (const id of ['a', 'b', 'c']) await ledger.record(attempt(id));
    for (const limit of [
      Number.NaN,
      2.5,
      0,
      -3,
      Infinity,
      -Infinity,
      1_001,
      undefined,
      1,
      2,
      1_000,
    ]) {
      const fromPg = await answer(pg, limit);
      expect([limit, fromPg]).toEqual([limit, await answer(memory, limit)]);
      if (limit === undefined || [1, 2, 1_000].includes(limit))
        expect(Array.isArray(fromPg)).toBe(true);
      else expect(fromPg).toEqual({ refused: 'X_INVARIANT' });
    }
  });

  it('answers fresh objects from each read, as the memory ledger now does', async () => {
    const pg = postgresWebhookLedger({ executor: db.executor });
    const [first] = await pg.attempts('ep-limit', 1);
    const [again] = await pg.attempts('ep-limit', 1);
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
  });
});
