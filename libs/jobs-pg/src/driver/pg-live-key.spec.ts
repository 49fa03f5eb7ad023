import { claimOf, type EnqueueRequest } from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresJobDriver, type PostgresJobDriver } from './pg-driver';

const START = Date.UTC(2026, 0, 1);
const LATER = 60_000;

/** A row enqueued due now, claimed and parked (`suspended`) until `LATER` from now on `clock`. */
async function parked(
  d: PostgresJobDriver,
  clock: FrozenClock,
  overrides: Partial<EnqueueRequest>,
): Promise<EnqueueRequest> {
  const holder = request({ runAt: clock.now(), ...overrides });
  await d.enqueue(holder);
  const [row] = await d.claim({
    workerId: 'w',
    slots: [{ queue: 'pg-q', limit: 1 }],
    visibilityTimeoutMs: 30_000,
  });
  if (row?.id !== holder.id) throw new Error('the holder was not claimed');
  const runAt = clock.now() + LATER;
  expect(await d.nack(row.id, { ...claimOf(row), kind: 'park', error: null, runAt })).toBe(true);
  expect((await d.get(row.id))?.state).toBe('suspended');
  return holder;
}

/**
 * The live key — (name, tenant, idempotency key) over the live states ready, delayed, running AND suspended — as every
 * statement that judges it sees it: the single enqueue's judging statement (which a driver sends straight after it
 * met a stored row), the batch's, an operator's requeue, and a promote, which keeps a parked row parked.
 */
describe('the live key on PostgreSQL (driven clock)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });
  const clock = frozenClock(START);
  const driver = (): PostgresJobDriver => postgresJobDriver({ executor: db.executor, clock });

  it('after a deduped enqueue, the same key under another tenant is still another key: a row of its own', async () => {
    const d = driver();
    const first = await d.enqueue(request({ idempotencyKey: 'k', tenantId: 'org-a' }));
    // deduped: the driver sends its next single enqueues straight to the judging statement
    expect((await d.enqueue(request({ idempotencyKey: 'k', tenantId: 'org-a' }))).deduped).toBe(
      true,
    );
    const other = request({ idempotencyKey: 'k', tenantId: 'org-b' });
    expect(await d.enqueue(other)).toEqual({ id: other.id, runId: other.runId, deduped: false });
    expect((await d.get(other.id))?.tenantId).toBe('org-b');
    expect((await d.get(first.id))?.tenantId).toBe('org-a');
  });

  it('a batch whose key a parked row holds answers the holder, deduped, and inserts nothing for it', async () => {
    const d = driver();
    const holder = await parked(d, clock, { idempotencyKey: 'held' });
    const second = request({ idempotencyKey: 'held', runAt: clock.now() });
    const fresh = request({ runAt: clock.now() });
    expect(await d.enqueueMany([second, fresh])).toEqual([
      { id: holder.id, runId: holder.runId, deduped: true },
      { id: fresh.id, runId: fresh.runId, deduped: false },
    ]);
    expect(await d.get(second.id)).toBeUndefined();
  });

  it('a requeue of a finished row whose key a parked row holds is X_JOB_DUPLICATE, and moves nothing', async () => {
    const d = driver();
    const old = request({ idempotencyKey: 'held', runAt: clock.now() });
    await d.enqueue(old);
    await d.introspect.cancel(old.id);
    const holder = await parked(d, clock, { idempotencyKey: 'held' });
    await expect(d.introspect.requeue(old.id)).rejects.toMatchObject({
      code: 'X_JOB_DUPLICATE',
      meta: { id: old.id, holder: holder.id },
    });
    expect((await d.get(old.id))?.state).toBe('cancelled');
  });

  it('a promote makes a parked row due now and keeps it parked: its claim is still a resume', async () => {
    const d = driver();
    const holder = await parked(d, clock, {});
    expect(await d.introspect.promote(holder.id)).toMatchObject({
      state: 'suspended',
      runAt: clock.now(),
    });
    expect(await d.get(holder.id)).toMatchObject({ state: 'suspended', runAt: clock.now() });
  });
});
