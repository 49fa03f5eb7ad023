import { webhook, type WebhookAttempt } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { migrate } from '../migrations/migrate';
import { until } from '../../../jobs/test/webhook-receiver';
import { webhookSpec } from '../../../jobs/test/webhook-spec';
import { postgresWebhookLedger, WEBHOOK_ATTEMPTS_PURGE_TARGET } from './pg-webhook-ledger';

const T0 = Date.UTC(2026, 0, 1);

function attempt(over: Partial<WebhookAttempt> = {}): WebhookAttempt {
  return {
    endpointId: 'ep-1',
    eventId: 'evt-1',
    topic: 'orders.paid',
    orgId: 'org-a',
    jobId: '0190f1f2-0000-7000-8000-000000000001',
    runId: '0190f1f2-0000-7000-8000-000000000002',
    attempt: 1,
    outcome: 'failed',
    status: 500,
    code: 'X_WEBHOOK_DELIVERY_FAILED',
    error: 'the receiver answered 500',
    attemptedAtMs: T0,
    durationMs: 12,
    ...over,
  };
}

describe('postgresWebhookLedger', () => {
  const db = pgJobsSpec({ migrate: false });
  beforeAll(async () => {
    // its own schema, as a deployment that keeps the jobs tables apart would
    await migrate(db.executor, { schema: 'hooks' });
  });
  const ledgerFor = () => postgresWebhookLedger({ executor: db.executor, schema: 'hooks' });

  it('counts failures in a row per endpoint, resets on a delivery, and keeps every attempt newest first', async () => {
    const ledger = ledgerFor();
    expect(await ledger.record(attempt({ endpointId: 'count' }))).toBe(1);
    expect(
      await ledger.record(
        attempt({ endpointId: 'count', attempt: 2, outcome: 'throttled', status: 429 }),
      ),
    ).toBe(2);
    expect(await ledger.record(attempt({ endpointId: 'other' }))).toBe(1);
    expect(
      await ledger.record(
        attempt({
          endpointId: 'count',
          attempt: 3,
          outcome: 'delivered',
          status: 200,
          code: null,
          error: null,
        }),
      ),
    ).toBe(0);
    expect(
      await ledger.record(
        attempt({ endpointId: 'count', eventId: 'evt-2', status: null, outcome: 'refused' }),
      ),
    ).toBe(1);
    const got = await ledger.attempts('count');
    expect(got.map((a) => [a.attempt, a.outcome, a.status])).toEqual([
      [1, 'refused', null],
      [3, 'delivered', 200],
      [2, 'throttled', 429],
      [1, 'failed', 500],
    ]);
    expect(got[3]).toEqual(attempt({ endpointId: 'count' }));
    expect(await ledger.attempts('count', 2)).toHaveLength(2);
  });

  it('counts every one of many failures recorded at once', async () => {
    const ledger = ledgerFor();
    const counts = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        ledger.record(attempt({ endpointId: 'race', eventId: `e${i}` })),
      ),
    );
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
  });

  it('disables idempotently (the first verdict stays) and only enable() clears it', async () => {
    const ledger = ledgerFor();
    expect(await ledger.isDisabled('off')).toBe(false);
    await ledger.disable('off', { failures: 10, atMs: T0, code: 'X_WEBHOOK_DELIVERY_FAILED' });
    await ledger.disable('off', {
      failures: 11,
      atMs: T0 + 1_000,
      code: 'X_WEBHOOK_DELIVERY_REJECTED',
    });
    expect(await ledger.isDisabled('off')).toBe(true);
    const { rows } = await db.executor.query<{
      disabled_failures: number;
      disabled_code: string;
      disabled_at_ms: number;
    }>(
      `select disabled_failures, disabled_code,
         floor(extract(epoch from disabled_at) * 1000)::float8 as disabled_at_ms
       from hooks.x_webhook_endpoints where endpoint_id = 'off'`,
      [],
    );
    // the whole first verdict: its count, its code and its time
    expect(rows).toEqual([
      { disabled_failures: 10, disabled_code: 'X_WEBHOOK_DELIVERY_FAILED', disabled_at_ms: T0 },
    ]);
    await ledger.enable('off');
    expect(await ledger.isDisabled('off')).toBe(false);
    expect(await ledger.record(attempt({ endpointId: 'off' }))).toBe(1);
  });

  it('sweeps attempts past the retention in batches, and never an endpoint verdict', async () => {
    const ledger = ledgerFor();
    const day = 24 * 3_600_000;
    for (let i = 0; i < 5; i++)
      await ledger.record(
        attempt({ endpointId: 'old', eventId: `o${i}`, attemptedAtMs: T0 - 40 * day + i }),
      );
    await ledger.record(attempt({ endpointId: 'old', eventId: 'fresh', attemptedAtMs: T0 - day }));
    await ledger.disable('old', { failures: 6, atMs: T0 - 39 * day, code: null });

    const target = ledger.purgeTarget({ keepMs: 30 * day, batchSize: 2 });
    expect(target.name).toBe(WEBHOOK_ATTEMPTS_PURGE_TARGET);
    expect(await target.purgeExpired(T0)).toBeGreaterThanOrEqual(5);
    expect((await ledger.attempts('old')).map((a) => a.eventId)).toEqual(['fresh']);
    expect(await ledger.isDisabled('old')).toBe(true);
    expect(await target.purgeExpired(T0)).toBe(0);
    expect(() => ledger.purgeTarget({ keepMs: 0 })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
  });

  it('keeps an attempt exactly the retention old, and sweeps one a millisecond older', async () => {
    const ledger = ledgerFor();
    const keepMs = 30 * 24 * 3_600_000;
    // the other tests' attempts (at T0) are swept too; only these two sit at the edge
    const now = T0 + 7 * keepMs;
    await ledger.record(
      attempt({ endpointId: 'edge', eventId: 'kept', attemptedAtMs: now - keepMs }),
    );
    await ledger.record(
      attempt({ endpointId: 'edge', eventId: 'gone', attemptedAtMs: now - keepMs - 1 }),
    );
    await ledger.purgeTarget({ keepMs }).purgeExpired(now);
    expect((await ledger.attempts('edge')).map((a) => a.eventId)).toEqual(['kept']);
  });

  it('keeps every attempt under a retention longer than the epoch is old, where the sweep failed on its cut-off', async () => {
    const ledger = ledgerFor();
    await ledger.record(attempt({ endpointId: 'forever', eventId: 'kept' }));
    await expect(
      ledger.purgeTarget({ keepMs: Number.MAX_SAFE_INTEGER }).purgeExpired(T0 + 1_000),
    ).resolves.toBe(0);
    expect((await ledger.attempts('forever')).map((a) => a.eventId)).toEqual(['kept']);
  });

  describe('behind webhook()', () => {
    const spec = webhookSpec();

    it('three 500s disable the endpoint in PostgreSQL; the next delivery opens no socket', async () => {
      spec.receiver.answer(() => ({ status: 500 }));
      const clock = frozenClock(T0);
      const ledger = ledgerFor();
      const deliver = webhook({
        name: 'pg.webhook.disable',
        tenant: ({ orgId }) => orgId,
        endpoint: () => ({ url: spec.receiver.url(), secret: 's' }),
        event: () => ({ topic: 'orders.paid', body: '{}' }),
        ledger,
        disableAfter: 3,
        destinations: { allowPrivate: true },
        retry: { attempts: 1 },
        clock,
      });
      await spec.runJobs({ jobs: [deliver], clock });
      const { turn } = spec;
      const ids: string[] = [];
      for (let n = 1; n <= 4; n++) {
        const { id } = await deliver.enqueue({
          endpointId: 'pg-ep',
          eventId: `evt-${n}`,
          orgId: 'org-a',
        });
        ids.push(id);
        await until(
          `delivery ${n} to dead-letter`,
          async () => (await spec.h.driver.get(id))?.state === 'dead',
          turn,
        );
      }
      expect(await ledger.isDisabled('pg-ep')).toBe(true);
      expect((await spec.h.driver.get(ids[3]!))?.lastError).toContain(
        'X_WEBHOOK_ENDPOINT_DISABLED',
      );
      expect(spec.receiver.connections()).toBe(3);
      expect((await ledger.attempts('pg-ep')).map((a) => a.eventId)).toEqual([
        'evt-3',
        'evt-2',
        'evt-1',
      ]);
    });
  });
});
